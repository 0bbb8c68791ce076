/**
 * The spec's idempotency key spaces, each with the webhook id (SPEC-NOTES §3.5): one forge
 * event reaching two webhooks of a team launches once per webhook.
 */
export function mergeRequestKey(tenantId: string, webhookId: string, projectId: string, mrIid: number, headSha: string): string {
  return `mr|${tenantId}|${webhookId}|${projectId}|${mrIid}|${headSha}`;
}

/** No prefix: the subject segment `note:<note_id>` marks it. */
export function noteKey(tenantId: string, webhookId: string, projectId: string, noteId: string): string {
  return `${tenantId}|${webhookId}|${projectId}|note:${noteId}`;
}

export function githubPullKey(tenantId: string, webhookId: string, projectPath: string, prNumber: number, headSha: string): string {
  return `gh|${tenantId}|${webhookId}|${projectPath}|${prNumber}|${headSha}`;
}

export function forgejoPullKey(tenantId: string, webhookId: string, projectPath: string, prNumber: number, headSha: string): string {
  return `fj|${tenantId}|${webhookId}|${projectPath}|${prNumber}|${headSha}`;
}

/** The caller's idempotency_key, else the SHA-256 hex of the raw body. */
export function genericKey(tenantId: string, webhookId: string, requestKeyOrBodySha: string): string {
  return `generic|${tenantId}|${webhookId}|${requestKeyOrBodySha}`;
}

/**
 * Issue-labeled lane: per issue and label (lower-cased), so re-applying the same label is a
 * replay, while a different allowlisted label is a new request.
 */
export function issueLabelKey(tenantId: string, webhookId: string, projectRef: string, issueNumber: number, label: string): string {
  return `issue|${tenantId}|${webhookId}|${projectRef}|${issueNumber}|label:${label.toLowerCase()}`;
}

/** Fan-out configs (bot_rules set) give each bot its own key; legacy configs keep the base key. */
export function withBotSegment(key: string, botId: string): string {
  return `${key}|bot:${botId}`;
}

/** Issue-opened lane (auto_implement_on_open): one run per issue, however often the forge redelivers it. */
export function issueOpenedKey(tenantId: string, webhookId: string, projectRef: string, issueNumber: number): string {
  return `issue|${tenantId}|${webhookId}|${projectRef}|${issueNumber}|opened`;
}

/** Merge-queue auto-heal: the branch-improvement bot once per head SHA. */
export function healKey(pullKey: string): string {
  return `${pullKey}|heal`;
}
