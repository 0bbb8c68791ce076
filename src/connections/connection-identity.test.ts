import { describe, expect, it } from "vitest";
import { connectionBotLogins } from "./connection-identity.js";

describe("connectionBotLogins (spec review rule 6)", () => {
  it.each([
    [{ provider: "forge_a", auth: "token", botLogin: "gitlab-bot" }, ["gitlab-bot"]],
    [{ provider: "forge_b", auth: "app", botLogin: "acme-review[bot]" }, ["acme-review[bot]"]],
    [{ provider: "forge_b", auth: "token", botLogin: "maria" }, []],
    [{ provider: "forge_c", auth: "token", botLogin: "maria" }, []],
    [null, []],
  ])("%j → %j", (connection, logins) => {
    expect(connectionBotLogins(connection)).toEqual(logins);
  });
});
