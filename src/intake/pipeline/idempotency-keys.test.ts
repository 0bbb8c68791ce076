import { describe, expect, it } from "vitest";
import { forgejoPullKey, genericKey, githubPullKey, issueLabelKey, mergeRequestKey, noteKey, withBotSegment } from "./idempotency-keys.js";

describe("idempotency key spaces", () => {
  it.each([
    [mergeRequestKey("t", "wh", "14", 7, "abc"), "mr|t|wh|14|7|abc"],
    [noteKey("t", "wh", "14", "1244"), "t|wh|14|note:1244"],
    [githubPullKey("t", "wh", "o/r", 2, "abc"), "gh|t|wh|o/r|2|abc"],
    [forgejoPullKey("t", "wh", "o/r", 2, "abc"), "fj|t|wh|o/r|2|abc"],
    [genericKey("t", "wh", "req-1"), "generic|t|wh|req-1"],
    [issueLabelKey("t", "wh", "o/r", 1, "Bot"), "issue|t|wh|o/r|1|label:bot"],
    [withBotSegment("gh|t|wh|o/r|2|abc", "review-pr"), "gh|t|wh|o/r|2|abc|bot:review-pr"],
  ])("%s", (got, want) => {
    expect(got).toBe(want);
  });

  it("the same event at two webhooks gets two keys", () => {
    expect(githubPullKey("t", "wh_a", "o/r", 2, "s")).not.toBe(githubPullKey("t", "wh_b", "o/r", 2, "s"));
  });
});
