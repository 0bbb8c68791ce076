import type { HookHttp } from "./hook-http.js";

/** A repository hook as provisioning needs it. */
export interface ForgeHook {
  id: string;
  /** The address the forge calls. */
  url: string;
}

/** A hook as the forge holds it, read back to judge its health. */
export interface HookState extends ForgeHook {
  /** Whether the forge calls it: GitHub's and Forgejo's `active`; GitLab's `alert_status` being `executable`. */
  active: boolean;
  /** The events it is subscribed to, in the forge's names; undefined when the forge did not say. */
  events?: string[];
  /** Subscribed to every event the forge sends, whatever `events` lists (GitHub's `*`). */
  everyEvent?: boolean;
  /** GitLab: `executable`, `disabled` or `temporarily_disabled` (until `disabledUntil`). */
  alertStatus?: string;
  disabledUntil?: string | null;
  /** Why the forge does not call it, where the forge says more than that it is off (GitLab's holds after failing deliveries). */
  inactiveWhy?: string;
}

/** One delivery of a hook as the forge recorded it (GitHub's hook deliveries). */
export interface HookDelivery {
  id: string;
  guid: string;
  deliveredAt: string;
  redelivery: boolean;
  /** Seconds. */
  duration: number;
  /** The forge's words for the answer, e.g. `OK`, `failed to connect`. */
  status: string;
  /** The answer's HTTP status; 0 when there was none. */
  statusCode: number;
  event: string;
  action: string | null;
}

/** What a hook is told: where to call, the shared secret, and the events the webhook handles. */
export interface HookSpec {
  url: string;
  secret: string;
}

/** A repository the credential can administer (add hooks to). */
export interface ForgeRepo {
  repo: string;
}

/**
 * A forge's repository hooks through one connection's credential. Every call throws a
 * ForgeFailure when the forge refuses or cannot be reached; `repo` is the forge's path.
 */
export interface ForgeHooks {
  /** The events the lanes need, in the forge's names: what a written hook subscribes to. */
  readonly neededEvents: readonly string[];
  listHooks(repo: string): Promise<ForgeHook[]>;
  /** Undefined when the forge says the hook is gone. */
  getHook(repo: string, hookId: string): Promise<HookState | undefined>;
  /** GitHub only: the hook's latest deliveries, newest first. */
  recentDeliveries?(repo: string, hookId: string, count: number): Promise<HookDelivery[]>;
  createHook(repo: string, spec: HookSpec): Promise<ForgeHook>;
  /** Rewrites the hook's address, secret and events, and (where the forge has the switch) turns it on. */
  updateHook(repo: string, hookId: string, spec: HookSpec): Promise<ForgeHook>;
  /**
   * GitLab only: an edit leaves a hook GitLab disabled for failing as it was; a test delivery
   * answered 2xx enables it. The forge signs the test with the hook's secret, so call this
   * once that secret is committed.
   */
  enableHook?(repo: string, hookId: string): Promise<void>;
  /** Answers false when the hook was already gone. */
  deleteHook(repo: string, hookId: string): Promise<boolean>;
  listRepos(): Promise<ForgeRepo[]>;
}

export interface HookOptions {
  /** A GitHub App installation's token: its repositories are the installation's. */
  installation?: boolean;
}

/** How one forge's hook calls are built on a connection's HTTP, and the headers its API wants on each. */
export interface HookModule {
  build(http: HookHttp, options: HookOptions): ForgeHooks;
  headers: Record<string, string>;
}
