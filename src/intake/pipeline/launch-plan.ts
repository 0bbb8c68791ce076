/** An issue a launch works on, as its card on the team's board shows it. */
export interface CardSeed {
  title: string;
  body: string;
  /** The issue's URL (else its subject id): one card per issue and team. */
  issueRef: string;
  /** A forge approval (`/approve`) of the issue: where the issue's card waits for one, the card is approved instead of launched. */
  approval?: Record<string, string>;
}

/** One run to launch; each bot of a fan-out gets its own plan, key and variables. */
export interface LaunchPlan {
  botId: string;
  /** A fresh map per plan: handler base, bot rule vars, operator_launch_vars, launch_vars. */
  vars: Record<string, string>;
  idempotencyKey: string;
  /** What runs are bound to, e.g. `gh:acme/app#12`; a pull_request close stops runs by it. */
  subjectId: string;
  parentSubjectId?: string;
  subjectSha?: string;
  /** "" when a generic request names no project. */
  projectPath: string;
  repoUrl?: string;
  repoRef?: string;
  /** A re-requested review (forge_b): folds into an in-flight review of the subject unless overlap is supersede. */
  collapse?: boolean;
  /** In-flight runs of the same (webhook, subject, bot) to cancel once this plan launched (overlap supersede). */
  supersedes?: string[];
  /** An issue lane's launch: its card when the webhook uses the team's board (`board_mode`). */
  card?: CardSeed;
  /** A gate auto-fix: held to `limit` fixes in a row on the pull request, told its place in the run (gate_fix_*). */
  gateFix?: { gate: string; limit: number };
  /** A review the gate's success launched: the pull request's run of fixes for this gate ends. */
  gatePassed?: string;
}
