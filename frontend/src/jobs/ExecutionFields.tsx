import { Fieldset, Select, SimpleGrid, Stack, TextInput, Textarea } from "@mantine/core";
import { CodeField } from "./CodeField";
import { mono, useWatch, type JobFormApi } from "./formApi";
import { HttpFields } from "./HttpFields";
import { ScriptVariables } from "./ScriptVariables";
import { executionModes, processorTypes, selectData } from "./labels";

/** Execution mode, processor type, the processor itself (script, name or request) and parameters. */
export function ExecutionFields({ form }: { form: JobFormApi }) {
  const mode = useWatch(form, "executionMode", (v) => v.executionMode);
  const type = useWatch(form, "processorType", (v) => v.processorType);
  const script = useWatch(form, "script", (v) => v.script);
  const isScript = type === "SHELL" || type === "PYTHON";

  return (
    <Fieldset legend="Execution">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label="Execution mode"
            data={selectData(executionModes)}
            allowDeselect={false}
            description={executionModes.find((c) => c.value === mode)?.description}
            key={form.key("executionMode")}
            {...form.getInputProps("executionMode")}
          />
          <Select
            label="Processor type"
            data={selectData(processorTypes)}
            allowDeselect={false}
            description={processorTypes.find((c) => c.value === type)?.description}
            key={form.key("processorType")}
            {...form.getInputProps("processorType")}
          />
        </SimpleGrid>
        {isScript && (
          <CodeField
            label={type === "PYTHON" ? "Python script" : "Shell script"}
            description="Runs in a temporary directory on the worker. Tab indents; press Esc, then Tab, to move on."
            language={type === "PYTHON" ? "python" : "shell"}
            placeholder={type === "PYTHON" ? 'print("hello")' : 'echo "hello"'}
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
            label="Processor name"
            description="The name a Go worker registered it under, e.g. sync-orders."
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
          label="Parameters"
          description={
            isScript
              ? "Given to every instance (e.g. JSON): the script reads them in $JOBWHEEL_JOB_PARAMS ($1); a run's own are in $JOBWHEEL_INSTANCE_PARAMS ($2)."
              : "Given to every instance (e.g. JSON); a run can add its own."
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
