package io.jobwheel.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A declaration of jobs in the agent's JOBWHEEL_JOBS_FILE format,
 * {@code {"set": "…", "dryRun": false, "jobs": [{"name", "scheduleType",
 * "processor", …}]}} (the wire's camelCase names), as the Go SDK's
 * {@code Config.DeclareFromFile} and the Python SDK's {@code read_jobs_file}
 * read it. Give it to {@link WorkerConfig.Builder#declare(JobsFile)}.
 */
public final class JobsFile {
    private final String set;
    private final boolean dryRun;
    private final List<JobDeclaration> jobs;

    private JobsFile(String set, boolean dryRun, List<JobDeclaration> jobs) {
        this.set = set;
        this.dryRun = dryRun;
        this.jobs = List.copyOf(jobs);
    }

    public String getSet() {
        return set;
    }

    public boolean isDryRun() {
        return dryRun;
    }

    public List<JobDeclaration> getJobs() {
        return jobs;
    }

    /**
     * Reads path. A file that cannot be read, or has an unknown field (a
     * misspelt one would otherwise be dropped silently), throws
     * ConfigException (field "jobs_file") naming the path and the problem.
     */
    public static JobsFile read(Path path) {
        String text;
        try {
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw bad(path, "cannot be read: " + e);
        }
        JsonNode doc;
        try {
            doc = Protocol.JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw bad(path, "not JSON: " + e.getOriginalMessage());
        }
        if (doc == null || !doc.isObject()) {
            throw bad(path, "not a JSON object");
        }
        for (Iterator<String> it = doc.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals("set") && !k.equals("dryRun") && !k.equals("jobs")) {
                throw bad(path, "unknown field \"" + k + "\"");
            }
        }
        JsonNode set = doc.get("set");
        if (set == null || !set.isTextual() || set.asText().isEmpty()) {
            throw bad(path, "\"set\" must name the set of jobs");
        }
        JsonNode dry = doc.get("dryRun");
        if (dry != null && !dry.isNull() && !dry.isBoolean()) {
            throw bad(path, "\"dryRun\" must be true or false");
        }
        JsonNode raw = doc.get("jobs");
        List<JobDeclaration> jobs = new ArrayList<>();
        if (raw != null && !raw.isNull()) {
            if (!raw.isArray()) {
                throw bad(path, "\"jobs\" must be a list");
            }
            int i = 0;
            for (JsonNode j : raw) {
                try {
                    jobs.add(JobDeclaration.fromWire(j));
                } catch (IllegalArgumentException e) {
                    throw bad(path, "jobs[" + i + "]: " + e.getMessage());
                }
                i++;
            }
        }
        return new JobsFile(set.asText(), dry != null && dry.asBoolean(false), jobs);
    }

    private static ConfigException bad(Path path, String reason) {
        return new ConfigException("jobs_file", path + ": " + reason);
    }
}
