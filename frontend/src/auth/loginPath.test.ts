import { afterLogin, loginPath } from "./loginPath";

describe("loginPath", () => {
  it("remembers a deep link", () => {
    expect(loginPath({ pathname: "/servers", search: "?x=1", hash: "" })).toBe("/login?next=%2Fservers%3Fx%3D1");
  });
  it("adds nothing for the home page", () => {
    expect(loginPath({ pathname: "/", search: "", hash: "" })).toBe("/login");
  });
});

describe("afterLogin", () => {
  it.each([
    ["/servers?x=1", "/servers?x=1"],
    [null, "/"],
    ["", "/"],
    ["https://evil.example", "/"],
    ["//evil.example", "/"],
    ["/\\evil.example", "/"],
    ["/login", "/"],
  ])("sends %j to %j", (next, want) => {
    expect(afterLogin(next)).toBe(want);
  });
});
