import type { Migration } from "kysely";
import { m0001Tenancy } from "./0001-tenancy.js";
import { m0003Runs } from "./0003-runs.js";
import { m0002Webhooks } from "./0002-webhooks.js";
import { m0004Intake } from "./0004-intake.js";
import { m0005PgCallAdmission } from "./0005-pg-call-admission.js";
import { m0006PgLaunchRun } from "./0006-pg-launch-run.js";
import { m0007PgLaunchDelivery } from "./0007-pg-launch-delivery.js";
import { m0008PgDeliverWebhookCall } from "./0008-pg-deliver-webhook-call.js";
import { m0009RunsPartialIndexes } from "./0009-runs-partial-indexes.js";
import { m0010PgDeliverDuplicate } from "./0010-pg-deliver-duplicate.js";
import { m0011PgOrgRunTallies } from "./0011-pg-org-run-tallies.js";
import { m0012PgDeliverInBatches } from "./0012-pg-deliver-in-batches.js";
import { m0013ParkedLaunches } from "./0013-parked-launches.js";
import { m0014PgBatchWritesInline } from "./0014-pg-batch-writes-inline.js";
import { m0015MembershipsExplicit } from "./0015-memberships-explicit.js";
import { m0016DropDeadFunctions } from "./0016-drop-dead-functions.js";
import { m0017AttemptCredentials } from "./0017-attempt-credentials.js";
import { m0018DropLaunchDelivery } from "./0018-drop-launch-delivery.js";
import { m0019SchedulesAndTriggers } from "./0019-schedules-and-triggers.js";
import { m0020RunRetries } from "./0020-run-retries.js";
import { m0021SignIn } from "./0021-sign-in.js";
import { m0023BoardCards } from "./0023-board-cards.js";
import { m0024ForgeConnections } from "./0024-forge-connections.js";
import { m0026ForgeResponses } from "./0026-forge-responses.js";
import { m0027WebhookBoardMode } from "./0027-webhook-board-mode.js";
import { m0028WebhookPreviousSecret } from "./0028-webhook-previous-secret.js";
import { m0029RepoBotHookWritten } from "./0029-repo-bot-hook-written.js";
import { m0030RepoBotSecurityRead } from "./0030-repo-bot-security-read.js";
import { m0031RunnerTokens } from "./0031-runner-tokens.js";
import { m0032RunLogs } from "./0032-run-logs.js";
import { m0033RunQuestionsAndStatusReports } from "./0033-run-questions-and-status-reports.js";
import { m0034SignInAddressFailures } from "./0034-sign-in-address-failures.js";
import { m0035DeliveryRefusalCode } from "./0035-delivery-refusal-code.js";
import { m0036WebhookPreviousValidUntilIndex } from "./0036-webhook-previous-valid-until-index.js";
import { m0037KeptRequests } from "./0037-kept-requests.js";
import { m0038Redeliveries } from "./0038-redeliveries.js";
import { m0039TeamBoardMode } from "./0039-team-board-mode.js";
import { m0040GateLanes } from "./0040-gate-lanes.js";
import { m0042RunsUpdatedAt } from "./0042-runs-updated-at.js";
import { m0051ForgeTokensToRevoke } from "./0051-forge-tokens-to-revoke.js";
import { m0052QuestionPosts } from "./0052-question-posts.js";
import { m0053OneRunCount } from "./0053-one-run-count.js";

/** Numbered migrations, schema only (functions live in store/postgres/); a change is a new number. */
export const migrations: Record<string, Migration> = {
  "0001_tenancy": m0001Tenancy,
  "0002_webhooks": m0002Webhooks,
  "0003_runs": m0003Runs,
  "0004_intake": m0004Intake,
  "0005_pg_call_admission": m0005PgCallAdmission,
  "0006_pg_launch_run": m0006PgLaunchRun,
  "0007_pg_launch_delivery": m0007PgLaunchDelivery,
  "0008_pg_deliver_webhook_call": m0008PgDeliverWebhookCall,
  "0009_runs_partial_indexes": m0009RunsPartialIndexes,
  "0010_pg_deliver_duplicate": m0010PgDeliverDuplicate,
  "0011_pg_org_run_tallies": m0011PgOrgRunTallies,
  "0012_pg_deliver_in_batches": m0012PgDeliverInBatches,
  "0013_parked_launches": m0013ParkedLaunches,
  "0014_pg_batch_writes_inline": m0014PgBatchWritesInline,
  "0015_memberships_explicit": m0015MembershipsExplicit,
  "0016_drop_dead_functions": m0016DropDeadFunctions,
  "0017_attempt_credentials": m0017AttemptCredentials,
  "0018_drop_launch_delivery": m0018DropLaunchDelivery,
  "0019_schedules_and_triggers": m0019SchedulesAndTriggers,
  "0020_run_retries": m0020RunRetries,
  "0021_sign_in": m0021SignIn,
  "0023_board_cards": m0023BoardCards,
  "0024_forge_connections": m0024ForgeConnections,
  "0026_forge_responses": m0026ForgeResponses,
  "0027_webhook_board_mode": m0027WebhookBoardMode,
  "0028_webhook_previous_secret": m0028WebhookPreviousSecret,
  "0029_repo_bot_hook_written": m0029RepoBotHookWritten,
  "0030_repo_bot_security_read": m0030RepoBotSecurityRead,
  "0031_runner_tokens": m0031RunnerTokens,
  "0032_run_logs": m0032RunLogs,
  "0033_run_questions_and_status_reports": m0033RunQuestionsAndStatusReports,
  "0034_sign_in_address_failures": m0034SignInAddressFailures,
  "0035_delivery_refusal_code": m0035DeliveryRefusalCode,
  "0036_webhook_previous_valid_until_index": m0036WebhookPreviousValidUntilIndex,
  "0037_kept_requests": m0037KeptRequests,
  "0038_redeliveries": m0038Redeliveries,
  "0039_team_board_mode": m0039TeamBoardMode,
  "0040_gate_lanes": m0040GateLanes,
  "0042_runs_updated_at": m0042RunsUpdatedAt,
  "0051_forge_tokens_to_revoke": m0051ForgeTokensToRevoke,
  "0052_question_posts": m0052QuestionPosts,
  "0053_one_run_count": m0053OneRunCount,
};
