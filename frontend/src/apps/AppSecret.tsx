import { SecretOnce } from "../components/SecretOnce";
import { AgentCommand } from "./AgentCommand";
import type { CreatedApp } from "./CreateAppForm";
import { t } from "../i18n";

interface AppSecretProps {
  created: CreatedApp;
  onDone: () => void;
}

/** The new app's secret, which the server returns this one time only. */
export function AppSecret({ created, onDone }: AppSecretProps) {
  return (
    <SecretOnce
      secret={created.secret}
      onDone={onDone}
      data-testid="app-secret"
      usage={<AgentCommand app={created.app.name} secret={created.secret} />}
    >{t("apps.AppSecret.app")}{" "}<strong>{created.app.name}</strong>{" "}{t("apps.AppSecret.wasCreatedItsWorkers")}</SecretOnce>
  );
}
