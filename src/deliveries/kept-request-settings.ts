export interface KeptRequestSettings {
  /** A body longer than this is recorded as too large to keep (SERVICE_DELIVERY_PAYLOAD_MAX_BYTES). */
  maxBodyBytes: number;
  /** A kept request is forgotten this long after it arrived (SERVICE_DELIVERY_PAYLOAD_RETENTION_DAYS). */
  retentionMs: number;
}
