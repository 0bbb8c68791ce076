import type { TenancyTables } from "./tenancy.js";

/** Every table of the store, one interface per capability's group. */
export interface Database extends TenancyTables {}
