import { describeWorkflowError, errorSourceLocation } from "@weft/contract";
import { describe, expect, it } from "vitest";

describe("errorSourceLocation", () => {
  it("names the first frame in the project's own files, past runtime, package and Node frames", () => {
    const stack = [
      "Error: card declined",
      "    at charge (node_modules/stripe-lite/index.js:40:11)",
      "    at file:///work/weft/packages/sdk/src/step.ts:18:5",
      "    at chargeCard (src/billing.ts:7:9)",
      "    at run (weft.config.ts:12:7)",
      "    at async /weft/runtime/child-runtime.ts:410:20",
      "    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)",
    ].join("\n");
    expect(errorSourceLocation(stack)).toBe("src/billing.ts:7:9");
  });

  it("reads frames without a function name", () => {
    expect(errorSourceLocation("TypeError: x is undefined\n    at weft.config.ts:3:1")).toBe("weft.config.ts:3:1");
  });

  it("has no location for a stack with no frame of the project's, or no stack", () => {
    expect(errorSourceLocation("Error: boom\n    at file:///weft/bundle/bundle.mjs:75:3")).toBeUndefined();
    expect(errorSourceLocation("Error: boom\n    at ../../usr/lib/weft/sdk.js:1:1")).toBeUndefined();
    expect(errorSourceLocation(undefined)).toBeUndefined();
  });
});

describe("describeWorkflowError", () => {
  it("adds the location to the message when there is one", () => {
    expect(describeWorkflowError({ message: "boom", stack: "Error: boom\n    at run (weft.config.ts:12:7)" })).toBe(
      "boom (at weft.config.ts:12:7)",
    );
    expect(describeWorkflowError({ message: "boom" })).toBe("boom");
  });

  it("takes the location an execution record carries over its stack, and none when the record has none", () => {
    const stack = "Error: boom\n    at run (weft.config.ts:12:7)";
    expect(describeWorkflowError({ message: "boom", stack, location: "workflows/pay.ts:3:9" })).toBe(
      "boom (at workflows/pay.ts:3:9)",
    );
    expect(describeWorkflowError({ message: "boom", stack, location: null })).toBe("boom");
  });
});
