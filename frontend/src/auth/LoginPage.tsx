import { useState, type SubmitEvent } from "react";
import { Alert, Button, Center, Divider, Paper, PasswordInput, Stack, TextInput, Title } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useNavigate, useSearchParams } from "react-router";
import { useMutation, useQuery, type CombinedError } from "urql";
import { useResetApi } from "../api/ApiProvider";
import { errorMessage } from "../api/errors";
import { afterLogin } from "./loginPath";
import { LoginMutation, SignInOptionsQuery } from "./operations";
import { t } from "../i18n";
import { LanguageSwitch } from "../layout/LanguageSwitch";

/**
 * Why single sign-on sent the browser back here (?sso_error=, set by the
 * server's callback; docs/sso.md).
 */
const ssoErrors: Record<string, string> = {
  denied: t("auth.LoginPage.theIdentityProviderRefused"),
  expired: t("auth.LoginPage.theSignInTook"),
  conflict: t("auth.LoginPage.aLocalUserAlready"),
  unavailable: t("auth.LoginPage.theIdentityProviderCannot"),
  failed: t("auth.LoginPage.signingInFailedTry"),
};

export function LoginPage() {
  useDocumentTitle(t("auth.LoginPage.logInJobwheel"));
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const resetApi = useResetApi();
  const [{ fetching }, login] = useMutation(LoginMutation);
  const [{ data: options }] = useQuery({ query: SignInOptionsQuery });
  const sso = options?.signInOptions.sso;
  // Until the server said, offer the form: it is what every server had.
  const passwords = options?.signInOptions.password ?? true;
  const ssoError = params.get("sso_error");
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
      <Stack align="center" w="100%">
      <Paper component="main" withBorder shadow="sm" p="xl" radius="md" w="100%" maw={380}>
        <form onSubmit={(e) => void submit(e)}>
          <Stack>
            <Title order={1} size="h2">{t("auth.LoginPage.jobwheel")}</Title>
            {error && (
              <Alert color="red" title={t("auth.LoginPage.couldNotLogIn")} role="alert">
                {errorMessage(error)}
              </Alert>
            )}
            {ssoError && !error && (
              <Alert color="red" title={t("auth.LoginPage.couldNotSignIn")} role="alert">
                {ssoErrors[ssoError] ?? ssoErrors.failed}
              </Alert>
            )}
            {sso && (
              <Button
                component="a"
                href={`${sso.loginUrl}?next=${encodeURIComponent(afterLogin(params.get("next")))}`}
                variant={passwords ? "default" : "filled"}
                fullWidth
              >{t("auth.LoginPage.signInWith", { name: sso.name })}</Button>
            )}
            {sso && passwords && <Divider label={t("auth.LoginPage.orWithAPassword")} labelPosition="center" />}
            {passwords && (
              <>
                {/* Every field is required; asterisks would only add noise here. */}
                <TextInput
                  label={t("auth.LoginPage.username")}
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
                  label={t("auth.LoginPage.password")}
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
                <Button type="submit" loading={fetching} fullWidth>{t("auth.LoginPage.logIn")}</Button>
              </>
            )}
          </Stack>
        </form>
      </Paper>
      <LanguageSwitch />
      </Stack>
    </Center>
  );
}
