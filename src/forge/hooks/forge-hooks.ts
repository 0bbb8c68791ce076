/** A repository hook as provisioning needs it. */
export interface ForgeHook {
  id: string;
  /** The address the forge calls. */
  url: string;
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
  listHooks(repo: string): Promise<ForgeHook[]>;
  createHook(repo: string, spec: HookSpec): Promise<ForgeHook>;
  updateHook(repo: string, hookId: string, spec: HookSpec): Promise<ForgeHook>;
  /** Answers false when the hook was already gone. */
  deleteHook(repo: string, hookId: string): Promise<boolean>;
  listRepos(): Promise<ForgeRepo[]>;
}
