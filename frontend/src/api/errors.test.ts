import { CombinedError } from "urql";
import { fieldErrors } from "./errors";

describe("fieldErrors", () => {
  it("gives each BAD_INPUT field its reason, worded the same in every form (no repeated field name)", () => {
    const error = new CombinedError({
      graphQLErrors: [
        { message: "name: must not be empty", extensions: { code: "BAD_INPUT", field: "name" } },
        { message: "workerFilter.tags: must not contain empty tags", extensions: { code: "BAD_INPUT", field: "workerFilter.tags" } },
        { message: "a reason without the prefix", extensions: { code: "BAD_INPUT", field: "password" } },
        { message: "not allowed", extensions: { code: "FORBIDDEN" } },
      ],
    });
    expect(fieldErrors(error)).toEqual({
      name: "must not be empty",
      "workerFilter.tags": "must not contain empty tags",
      password: "a reason without the prefix",
    });
  });
});
