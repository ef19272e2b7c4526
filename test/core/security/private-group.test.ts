import { describe, expect, it } from "vitest";
import { privateGroupJudge } from "../../../core/private-group.js";

/** A judge reading these tables instead of /etc (the rule is about their content; the CLI tests use the machine's). */
const judge = (passwd: string, group: string) => privateGroupJudge((path) => (path === "/etc/passwd" ? passwd : path === "/etc/group" ? group : undefined));
const PASSWD = "root:x:0:0:root:/root:/bin/bash\nann:x:1000:1000::/home/ann:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/sh\n";

describe("a group is a user's private group only when no one else can be in it", () => {
  it("the user's primary group, named after them, with no other member and no other user's primary group, is private", () => {
    expect(judge(PASSWD, "root:x:0:\nann:x:1000:\nbob:x:1001:bob\n")(1000, 1000)).toBe(true);
    expect(judge(PASSWD, "ann:x:1000:ann\n")(1000, 1000)).toBe(true);
  });

  it("a group listing another member, named otherwise, another user's primary group, or not the user's primary group is not", () => {
    expect(judge(PASSWD, "ann:x:1000:ann,bob\n")(1000, 1000)).toBe(false);
    expect(judge(PASSWD, "staff:x:1000:\n")(1000, 1000)).toBe(false);
    expect(judge(`${PASSWD}carl:x:1002:1000::/:/bin/sh\n`, "ann:x:1000:\n")(1000, 1000)).toBe(false);
    expect(judge(PASSWD, "ann:x:1000:\nteam:x:1001:\n")(1000, 1001)).toBe(false);
    // two lines for one gid: both must be the user's alone
    expect(judge(PASSWD, "ann:x:1000:\nteam:x:1000:\n")(1000, 1000)).toBe(false);
  });

  it("what the tables do not show is not private: a user or group they lack, NIS entries, unreadable tables", () => {
    expect(judge(PASSWD, "ann:x:1000:\n")(1005, 1005)).toBe(false);
    expect(judge(PASSWD, "root:x:0:\n")(1000, 1000)).toBe(false);
    expect(judge(`${PASSWD}+::::::\n`, "ann:x:1000:\n")(1000, 1000)).toBe(false);
    expect(privateGroupJudge(() => undefined)(0, 0)).toBe(false);
  });
});
