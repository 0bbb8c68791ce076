/** How the issue lanes use the team's board: off, track (a card follows each launch) or coordinate (the card is the work). */
export const BOARD_MODES = ["off", "track", "coordinate"] as const;
export type BoardMode = (typeof BOARD_MODES)[number];

/**
 * The board a delivery's issue lanes use: the team's, unless the webhook names one of its own.
 * A webhook's `board_mode` (deprecated) other than `off` wins, so configs that set it keep working.
 */
export function effectiveBoardMode(webhook: BoardMode, team: BoardMode): BoardMode {
  return webhook !== "off" ? webhook : team;
}
