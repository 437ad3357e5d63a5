import { Fieldset, Select, SimpleGrid, Stack, TextInput, Textarea } from "@mantine/core";
import { CodeField } from "./CodeField";
import { mono, useWatch, type JobFormApi } from "./formApi";
import { HttpFields } from "./HttpFields";
import { ScriptVariables } from "./ScriptVariables";
import { executionModes, processorTypes, selectData } from "./labels";
import { t } from "../i18n";

/** Execution mode, processor type, the processor itself (script, name or request) and parameters. */
/** Code, not prose: the same in every language. */
const scriptExamples = { python: 'print("hello")', shell: 'echo "hello"' };

export function ExecutionFields({ form }: { form: JobFormApi }) {
  const mode = useWatch(form, "executionMode", (v) => v.executionMode);
  const type = useWatch(form, "processorType", (v) => v.processorType);
  const script = useWatch(form, "script", (v) => v.script);
  const isScript = type === "SHELL" || type === "PYTHON";

  return (
    <Fieldset legend={t("jobs.ExecutionFields.execution")}>
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t("jobs.ExecutionFields.executionMode")}
            data={selectData(executionModes)}
            allowDeselect={false}
            description={executionModes.find((c) => c.value === mode)?.description}
            key={form.key("executionMode")}
            {...form.getInputProps("executionMode")}
          />
          <Select
            label={t("jobs.ExecutionFields.processorType")}
            data={selectData(processorTypes)}
            allowDeselect={false}
            description={processorTypes.find((c) => c.value === type)?.description}
            key={form.key("processorType")}
            {...form.getInputProps("processorType")}
          />
        </SimpleGrid>
        {isScript && (
          <CodeField
            label={type === "PYTHON" ? t("jobs.ExecutionFields.pythonScript") : t("jobs.ExecutionFields.shellScript")}
            description={t("jobs.ExecutionFields.runsInATemporary")}
            language={type === "PYTHON" ? "python" : "shell"}
            placeholder={type === "PYTHON" ? scriptExamples.python : scriptExamples.shell}
            required
            value={script}
            // No re-render of the form per keystroke; this section watches the script.
            onChange={(value) => form.setFieldValue("script", value, { forceUpdate: false })}
            error={form.errors["script"]}
          />
        )}
        {isScript && <ScriptVariables />}
        {type === "GO" && (
          <TextInput
            label={t("jobs.ExecutionFields.processorName")}
            description={t("jobs.ExecutionFields.theNameAGo")}
            required
            styles={mono}
            autoComplete="off"
            spellCheck={false}
            key={form.key("goProcessor")}
            {...form.getInputProps("goProcessor")}
          />
        )}
        {type === "HTTP" && <HttpFields form={form} />}
        <Textarea
          label={t("jobs.ExecutionFields.parameters")}
          description={
            isScript
              ? t("jobs.ExecutionFields.givenToEveryInstance")
              : t("jobs.ExecutionFields.givenToEveryInstance2")
          }
          autosize
          minRows={2}
          maxRows={10}
          styles={mono}
          spellCheck={false}
          key={form.key("params")}
          {...form.getInputProps("params")}
        />
      </Stack>
    </Fieldset>
  );
}
