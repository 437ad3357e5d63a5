import { Fieldset, NumberInput, SimpleGrid } from "@mantine/core";
import type { JobFormApi } from "./formApi";

export function LimitsFields({ form }: { form: JobFormApi }) {
  return (
    <Fieldset legend="Limits and retries">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        <NumberInput
          label="Max instances"
          description="Runs of this job at once; a fire over it is canceled."
          min={1}
          allowDecimal={false}
          key={form.key("maxInstances")}
          {...form.getInputProps("maxInstances")}
        />
        <NumberInput
          label="Task concurrency"
          description="Tasks of one instance a worker runs at once."
          min={1}
          allowDecimal={false}
          key={form.key("taskConcurrency")}
          {...form.getInputProps("taskConcurrency")}
        />
        <NumberInput
          label="Timeout (ms)"
          description="An instance running longer fails with TIMEOUT; 0: none."
          min={0}
          step={1000}
          allowDecimal={false}
          key={form.key("timeoutMs")}
          {...form.getInputProps("timeoutMs")}
        />
        <NumberInput
          label="Instance retries"
          description="Times a failed instance runs again."
          min={0}
          allowDecimal={false}
          key={form.key("instanceRetries")}
          {...form.getInputProps("instanceRetries")}
        />
        <NumberInput
          label="Task retries"
          description="Times a failed task is retried."
          min={0}
          allowDecimal={false}
          key={form.key("taskRetries")}
          {...form.getInputProps("taskRetries")}
        />
      </SimpleGrid>
    </Fieldset>
  );
}
