import { binaryCommand, dockerCommand, shellWord } from "./AgentCommand";

describe("the agent commands", () => {
  it("fill in the server, app and secret, quoted for the shell where needed", () => {
    expect(binaryCommand("orders", "jwa_abc-DEF", "https://jobs.example.com")).toBe(
      "JOBWHEEL_SERVERS=https://jobs.example.com \\\nJOBWHEEL_APP=orders \\\nJOBWHEEL_APP_SECRET=jwa_abc-DEF \\\n./bin/jobwheel-agent",
    );
    expect(shellWord("it's $HOME")).toBe("'it'\\''s $HOME'");
  });

  it("reach a server on the host's loopback from the container through the host's network", () => {
    expect(dockerCommand("orders", "s", "http://localhost:7700")).toContain("--network host");
    expect(dockerCommand("orders", "s", "https://jobs.example.com")).not.toContain("--network host");
  });
});
