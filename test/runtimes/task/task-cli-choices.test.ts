import { describe, expect, it } from "vitest";
import { PRIORITY_CHOICES, STATUS_CHOICES } from "../../../runtimes/task/cli.js";
import { STATUS_ENUM, TASK_PRIORITIES } from "../../../runtimes/task/task-types.js";

describe("keel task option choices", () => {
  it("are the values the task tools accept (the CLI repeats them so it loads no runtime code)", () => {
    expect([...STATUS_CHOICES].sort()).toEqual([...STATUS_ENUM].sort());
    expect([...PRIORITY_CHOICES]).toEqual([...TASK_PRIORITIES]);
  });
});
