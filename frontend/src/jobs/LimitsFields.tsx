import { Fieldset, NumberInput, SimpleGrid } from "@mantine/core";
import { useWatch, type JobFormApi } from "./formApi";
import { backoffShown } from "./jobForm";
import { t } from "../i18n";

// clampBehavior="none" in every number field of the form: a value out of
// range stays as typed and the form says why (validateJob), rather than
// changing it on blur behind the user's back.
export function LimitsFields({ form }: { form: JobFormApi }) {
  // The back-off's growth and cap shape a retry delay that is set: they
  // show only then.
  const backoff = useWatch(form, "retryDelayMs", backoffShown);
  return (
    <Fieldset legend={t("jobs.LimitsFields.limitsAndRetries")}>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        <NumberInput
          clampBehavior="none"
          label={t("jobs.LimitsFields.maxInstances")}
          description={t("jobs.LimitsFields.runsOfThisJob")}
          min={1}
          allowDecimal={false}
          key={form.key("maxInstances")}
          {...form.getInputProps("maxInstances")}
        />
        <NumberInput
          clampBehavior="none"
          label={t("jobs.LimitsFields.taskConcurrency")}
          description={t("jobs.LimitsFields.tasksOfOneInstance")}
          min={1}
          allowDecimal={false}
          key={form.key("taskConcurrency")}
          {...form.getInputProps("taskConcurrency")}
        />
        <NumberInput
          clampBehavior="none"
          label={t("jobs.LimitsFields.timeoutMs")}
          description={t("jobs.LimitsFields.anInstanceRunningLonger")}
          min={0}
          step={1000}
          allowDecimal={false}
          key={form.key("timeoutMs")}
          {...form.getInputProps("timeoutMs")}
        />
        <NumberInput
          clampBehavior="none"
          label={t("jobs.LimitsFields.instanceRetries")}
          description={t("jobs.LimitsFields.timesAFailedInstance")}
          min={0}
          allowDecimal={false}
          key={form.key("instanceRetries")}
          {...form.getInputProps("instanceRetries")}
        />
        <NumberInput
          clampBehavior="none"
          label={t("jobs.LimitsFields.taskRetries")}
          description={t("jobs.LimitsFields.timesAFailedTask")}
          min={0}
          allowDecimal={false}
          key={form.key("taskRetries")}
          {...form.getInputProps("taskRetries")}
        />
        <NumberInput
          clampBehavior="none"
          label={t("jobs.LimitsFields.retryDelayMs")}
          description={t("jobs.LimitsFields.waitBeforeTheFirst")}
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
              label={t("jobs.LimitsFields.retryBackOff")}
              description={t("jobs.LimitsFields.eachFurtherRetryWaits")}
              min={1}
              max={10}
              step={0.5}
              decimalScale={2}
              key={form.key("retryBackoff")}
              {...form.getInputProps("retryBackoff")}
            />
            <NumberInput
              clampBehavior="none"
              label={t("jobs.LimitsFields.maxRetryDelayMs")}
              description={t("jobs.LimitsFields.theLongestARetry")}
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
