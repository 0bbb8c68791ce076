/** Bot ids: lowercase, digits and dashes, as in the spec's `review-pr`. */
export const BOT_ID_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface BuiltinBot {
  id: string;
  name: string;
  description: string;
}

/** Bots every org has; the intake routes to them by these ids. */
export const BUILTIN_BOTS: readonly BuiltinBot[] = [
  { id: "review-pr", name: "Review bot", description: "Reviews pull and merge requests" },
  { id: "converse", name: "Converse bot", description: "Answers questions and replies in review threads" },
  { id: "improve", name: "Branch-improvement bot", description: "Commits fixes onto a branch or opens a follow-up PR" },
];

/** The mutating branch-improvement bot: commands may launch it, the review lane never does. */
export const BRANCH_IMPROVE_BOT = "improve";

export const isBuiltinBot = (id: string) => BUILTIN_BOTS.some((b) => b.id === id);
