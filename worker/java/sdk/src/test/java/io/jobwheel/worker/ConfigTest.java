package io.jobwheel.worker;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Settings, jobs declared in code, and the agent's jobs file. */
class ConfigTest {
    private static void bad(WorkerConfig.Builder b, String field, String reason) {
        ConfigException e = assertThrows(ConfigException.class, b::build);
        assertEquals(field, e.getField(), e.getMessage());
        assertTrue(e.getReason().contains(reason), e.getMessage());
    }

    private static WorkerConfig.Builder good() {
        return WorkerConfig.builder().app("orders").secret("s").servers("http://h:7700");
    }

    @Test
    void badSettingsNameTheSetting() {
        bad(good().app(" "), "app", "is empty");
        bad(good().secret(""), "secret", "is empty");
        bad(good().servers(List.of()), "servers", "is empty");
        bad(good().servers("http://h", "h:7700"), "servers[1]", "is not an http:// or https:// URL");
        bad(good().slots(0), "slots", "not between 1 and 10000");
        bad(good().slots(10_001), "slots", "not between 1 and 10000");
        bad(good().name("n".repeat(101)), "name", "at most 100");
        bad(good().tags(Collections.nCopies(65, "t")), "tags", "at most 64");
        bad(good().tags("a", " "), "tags[1]", "is empty");
        bad(good().mapTimeout(Duration.ZERO), "mapTimeout", "not a positive duration");
        bad(good().maxBufferedLogLines(0), "maxBufferedLogLines", "not a positive number");
        bad(good().workDir(Path.of("/no/such/dir")), "workDir", "is not a directory");
        bad(good().jobs(JobDeclaration.builder("j", "API", "p").build()), "jobSet", "is empty");
        bad(good().jobsDryRun(true), "jobSet", "is empty");
        List<JobDeclaration> many = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            many.add(JobDeclaration.builder("j" + i, "API", "p").build());
        }
        bad(good().jobSet("s").jobs(many), "jobs", "at most 1000");
    }

    @Test
    void fromEnvReadsTheAgentsVariablesAndNamesThemInErrors() {
        WorkerConfig c = WorkerConfig.fromEnv(Map.of("JOBWHEEL_APP", "orders", "JOBWHEEL_APP_SECRET", "s",
                "JOBWHEEL_SERVERS", "http://a:1, http://b:2", "JOBWHEEL_WORKER_TAGS", "x,y", "JOBWHEEL_WORKER_SLOTS", "7",
                "JOBWHEEL_WORKER_NAME", "billing")).build();
        assertEquals(List.of("http://a:1", "http://b:2"), c.servers);
        assertEquals(List.of("x", "y"), c.tags);
        assertEquals(7, c.slots);
        assertEquals("billing", c.name);
        assertEquals(List.of("http://localhost:7700"), WorkerConfig.fromEnv(Map.of("JOBWHEEL_APP", "a", "JOBWHEEL_APP_SECRET", "s")).build().servers);
        bad(WorkerConfig.fromEnv(Map.of("JOBWHEEL_APP_SECRET", "s")), "JOBWHEEL_APP", "is empty");
        bad(WorkerConfig.fromEnv(Map.of("JOBWHEEL_APP", "a", "JOBWHEEL_APP_SECRET", "s", "JOBWHEEL_WORKER_SLOTS", "lots")),
                "JOBWHEEL_WORKER_SLOTS", "is not a number");
        bad(WorkerConfig.fromEnv(Map.of("JOBWHEEL_APP", "a", "JOBWHEEL_APP_SECRET", "s", "JOBWHEEL_WORKER_SLOTS", "0")),
                "JOBWHEEL_WORKER_SLOTS", "not between");
        // A setting given in code wins, and its errors name it.
        bad(WorkerConfig.fromEnv(Map.of("JOBWHEEL_APP", "a", "JOBWHEEL_APP_SECRET", "s")).slots(0), "slots", "not between");
        assertEquals(3, WorkerConfig.fromEnv(Map.of("JOBWHEEL_APP", "a", "JOBWHEEL_APP_SECRET", "s", "JOBWHEEL_WORKER_SLOTS", "lots"))
                .slots(3).build().slots);
    }

    @Test
    void helloCarriesTheDeclaredJobsAsTheGoSdkSendsThem() {
        JobDeclaration nightly = JobDeclaration.builder("invoices", "CRON", "invoices").scheduleExpression("0 0 3 * * ?")
                .timeZone("Europe/Berlin").timeoutMs(600_000).priority(-2).retryBackoff(1.5).build();
        Worker w = new Worker(good().logger(Support.QUIET).jobSet("billing").jobs(nightly,
                JobDeclaration.builder("remind", "API", "remind").maxInstances(2).build()).build());
        ObjectNode h = w.hello();
        assertEquals("billing", h.get("jobSet").asText());
        assertEquals("[{\"name\":\"invoices\",\"scheduleType\":\"CRON\",\"scheduleExpression\":\"0 0 3 * * ?\",\"timeZone\":\"Europe/Berlin\","
                + "\"processor\":\"invoices\",\"timeoutMs\":600000,\"priority\":-2,\"retryBackoff\":1.5},"
                + "{\"name\":\"remind\",\"scheduleType\":\"API\",\"processor\":\"remind\",\"maxInstances\":2}]", h.get("jobs").toString());
        assertTrue(!h.has("jobsDryRun"));
        // An empty set still names it: its jobs are disabled.
        ObjectNode empty = new Worker(good().logger(Support.QUIET).jobSet("billing").build()).hello();
        assertEquals("billing", empty.get("jobSet").asText());
        assertTrue(!empty.has("jobs"));
        assertTrue(new Worker(good().logger(Support.QUIET).jobSet("b").jobsDryRun(true).build()).hello().get("jobsDryRun").asBoolean());
    }

    @Test
    void theAgentsJobsFile(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("jobs.json");
        Files.writeString(f, "{\"set\":\"kit\",\"jobs\":[{\"name\":\"n\",\"description\":\"d\",\"scheduleType\":\"CRON\","
                + "\"scheduleExpression\":\"0 0 3 * * ?\",\"timeZone\":\"Europe/Berlin\",\"executionMode\":\"STANDALONE\","
                + "\"processor\":\"p\",\"params\":\"{\\\"lines\\\": 1}\",\"maxInstances\":2,\"taskConcurrency\":1,\"timeoutMs\":60000,"
                + "\"instanceRetries\":1,\"taskRetries\":2,\"overlapPolicy\":\"QUEUE\",\"maxQueued\":3,\"priority\":-2,"
                + "\"retryDelayMs\":1000,\"retryBackoff\":1.5,\"retryDelayMaxMs\":30000},{\"name\":\"a\",\"scheduleType\":\"API\",\"processor\":\"f\"}]}");
        JobsFile jf = JobsFile.read(f);
        assertEquals("kit", jf.getSet());
        assertEquals(2, jf.getJobs().size());
        ObjectNode wire = jf.getJobs().get(0).toWire();
        assertEquals(19, wire.size(), "every field of the declaration is carried: " + wire);
        assertEquals(Protocol.JSON.readTree(Files.readString(f)).get("jobs").get(0), wire);

        String[][] cases = {
                {"[]", "not a JSON object"},
                {"{\"jobs\":[]}", "\"set\" must name the set of jobs"},
                {"{\"set\":\"s\",\"extra\":1}", "unknown field \"extra\""},
                {"{\"set\":\"s\",\"dryRun\":\"yes\"}", "\"dryRun\" must be true or false"},
                {"{\"set\":\"s\",\"jobs\":[{\"name\":\"n\",\"scheduleType\":\"API\"}]}", "jobs[0]: missing field \"processor\""},
                {"{\"set\":\"s\",\"jobs\":[{\"name\":\"n\",\"scheduleType\":\"API\",\"processor\":\"p\",\"timeout\":1}]}", "jobs[0]: unknown field \"timeout\""},
                {"{\"set\":\"s\",\"jobs\":[{\"name\":\"n\",\"scheduleType\":\"API\",\"processor\":\"p\",\"timeoutMs\":\"1\"}]}", "jobs[0]: field \"timeoutMs\""},
        };
        for (String[] c : cases) {
            Files.writeString(f, c[0]);
            ConfigException e = assertThrows(ConfigException.class, () -> JobsFile.read(f), c[0]);
            assertEquals("jobs_file", e.getField());
            assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
        }
        ConfigException e = assertThrows(ConfigException.class, () -> JobsFile.read(dir.resolve("missing.json")));
        assertTrue(e.getMessage().contains("cannot be read"), e.getMessage());
    }
}
