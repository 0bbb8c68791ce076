/** A delivery's request as received, sealed under the seal key (docs/deliveries.md). */
export interface KeptRequestsTable {
  id: string;
  tenant_id: string;
  webhook_id: string;
  provider: string;
  /** The seal key both blobs are sealed under. */
  key_id: string;
  /** Sealed JSON of the headers, token headers removed. */
  headers: string;
  /** Sealed gzip of the body; null when the body was larger than the cap. */
  body: string | null;
  body_bytes: number;
  source_ip: string | null;
  created_at: number;
}

/** Each delivery row a kept request gave (several for a fan-out webhook, one more per redelivery). */
export interface KeptRequestRowsTable {
  delivery_id: string;
  request_id: string;
}

/** A delivery row given by sending a kept request again. */
export interface RedeliveriesTable {
  delivery_id: string;
  redelivery_of: string;
  webhook_id: string;
  proof: "verified_again" | "verified_on_arrival";
  fresh_key: string | null;
  requested_by: string | null;
  created_at: number;
}

export interface KeptRequestTables {
  kept_requests: KeptRequestsTable;
  kept_request_rows: KeptRequestRowsTable;
  redeliveries: RedeliveriesTable;
}
