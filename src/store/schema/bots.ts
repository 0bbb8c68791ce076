/** Bots an org registers beside the built-in ones; the id is unique within the org. */
export interface OrgBotsTable {
  org_id: string;
  id: string;
  name: string;
  description: string;
  created_by: string | null;
  created_at: number;
}

export interface BotTables {
  org_bots: OrgBotsTable;
}
