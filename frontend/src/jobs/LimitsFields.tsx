import { Fieldset, NumberInput, SimpleGrid } from "@mantine/core";
import { useWatch, type JobFormApi } from "./formApi";
import { backoffShown } from "./jobForm";

// clampBehavior="none" in every number field of the form: a value out of
// range stays as typed and the form says why (validateJob), rather than
// changing it on blur behind the user's back.
export function LimitsFields({ form }: { form: JobFormApi }) {
  // The back-off's growth and cap shape a retry delay that is set: they
  // show only then.
  const backoff = useWatch(form, "retryDelayMs", backoffShown);
  return (
    <Fieldset legend="Limits and retries">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        <NumberInput
          clampBehavior="none"
          label="Max instances"
          description="Runs of this job at once; the overlap policy says what a fire over it does."
          min={1}
          allowDecimal={false}
          key={form.key("maxInstances")}
          {...form.getInputProps("maxInstances")}
        />
        <NumberInput
          clampBehavior="none"
          label="Task concurrency"
          description="Tasks of one instance a worker runs at once."
          min={1}
          allowDecimal={false}
          key={form.key("taskConcurrency")}
          {...form.getInputProps("taskConcurrency")}
        />
        <NumberInput
          clampBehavior="none"
          label="Timeout (ms)"
          description="An instance running longer fails with TIMEOUT; 0: none."
          min={0}
          step={1000}
          allowDecimal={false}
          key={form.key("timeoutMs")}
          {...form.getInputProps("timeoutMs")}
        />
        <NumberInput
          clampBehavior="none"
          label="Instance retries"
          description="Times a failed instance runs again."
          min={0}
          allowDecimal={false}
          key={form.key("instanceRetries")}
          {...form.getInputProps("instanceRetries")}
        />
        <NumberInput
          clampBehavior="none"
          label="Task retries"
          description="Times a failed task is retried."
          min={0}
          allowDecimal={false}
          key={form.key("taskRetries")}
          {...form.getInputProps("taskRetries")}
        />
        <NumberInput
          clampBehavior="none"
          label="Retry delay (ms)"
          description="Wait before the first retry; 0: 1 s for an instance, at once for a task."
          min={0}
          step={1000}
          allowDecimal={false}
          key={form.key("retryDelayMs")}
          {...form.getInputProps("retryDelayMs")}
        />
        {backoff && (
          <>
            <NumberInput
              clampBehavior="none"
              label="Retry back-off"
              description="Each further retry waits this many times longer (1: the same)."
              min={1}
              max={10}
              step={0.5}
              decimalScale={2}
              key={form.key("retryBackoff")}
              {...form.getInputProps("retryBackoff")}
            />
            <NumberInput
              clampBehavior="none"
              label="Max retry delay (ms)"
              description="The longest a retry waits; 0: no cap (at most a day). Up to 10% jitter is added."
              min={0}
              step={1000}
              allowDecimal={false}
              key={form.key("retryDelayMaxMs")}
              {...form.getInputProps("retryDelayMaxMs")}
            />
          </>
        )}
      </SimpleGrid>
    </Fieldset>
  );
}
