/**
 * The repository every fake forge starts with, so one test can ask all three the same
 * questions: acme/widgets, pull request 7 open from a branch of the same repository,
 * maria a developer there, and the token belonging to review-bot.
 */
export const WORLD = {
  repo: "acme/widgets",
  repoId: 1001,
  number: 7,
  headSha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
  headRef: "feature/faster-sprockets",
  baseRef: "main",
  labels: ["backend"],
  updatedAt: "2026-11-20T10:00:00Z",
  createdAt: "2026-11-19T09:00:00Z",
  maria: { login: "maria", id: 42 },
  bot: { login: "review-bot", id: 99 },
  /** The bot's review of the pull request, as each fake holds it. */
  review: "Two findings: the sprocket loop allocates per call; the cache is never evicted.",
  /** A fork's repository, for the cases that need one. */
  fork: { fullName: "mallory/widgets", id: 2002 },
} as const;

/** Ids each fake hands out for what tests create (comments, notes, reactions). */
export class IdSequence {
  constructor(private next: number) {}
  take(): number {
    return this.next++;
  }
}

/** Every field optional, at every depth: a fake's answer is checked against the forge's own types for the fields it sends. */
export type DeepPartial<T> = T extends readonly (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;
