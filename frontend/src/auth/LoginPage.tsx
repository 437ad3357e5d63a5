import { useState, type SubmitEvent } from "react";
import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useNavigate, useSearchParams } from "react-router";
import { useMutation, type CombinedError } from "urql";
import { useResetApi } from "../api/ApiProvider";
import { errorMessage } from "../api/errors";
import { afterLogin } from "./loginPath";
import { LoginMutation } from "./operations";

export function LoginPage() {
  useDocumentTitle("Log in · jobwheel");
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const resetApi = useResetApi();
  const [{ fetching }, login] = useMutation(LoginMutation);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  // The last attempt's error, until the next attempt starts: editing a
  // field or sending the form again takes the old verdict away.
  const [error, setError] = useState<CombinedError | undefined>(undefined);

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(undefined);
    const result = await login({ username, password });
    setError(result.error);
    if (result.data) {
      resetApi();
      await navigate(afterLogin(params.get("next")), { replace: true });
    }
  }

  return (
    <Center mih="100dvh" p="md">
      <Paper component="main" withBorder shadow="sm" p="xl" radius="md" w="100%" maw={380}>
        <form onSubmit={(e) => void submit(e)}>
          <Stack>
            <Title order={1} size="h2">
              jobwheel
            </Title>
            {error && (
              <Alert color="red" title="Could not log in" role="alert">
                {errorMessage(error)}
              </Alert>
            )}
            {/* Every field is required; asterisks would only add noise here. */}
            <TextInput
              label="Username"
              name="username"
              autoComplete="username"
              required
              withAsterisk={false}
              autoFocus
              value={username}
              onChange={(e) => {
                setUsername(e.currentTarget.value);
                setError(undefined);
              }}
            />
            <PasswordInput
              label="Password"
              name="password"
              autoComplete="current-password"
              required
              withAsterisk={false}
              value={password}
              onChange={(e) => {
                setPassword(e.currentTarget.value);
                setError(undefined);
              }}
            />
            <Button type="submit" loading={fetching} fullWidth>
              Log in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
