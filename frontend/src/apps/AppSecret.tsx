import { SecretOnce } from "../components/SecretOnce";
import { AgentCommand } from "./AgentCommand";
import type { CreatedApp } from "./CreateAppForm";

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
    >
      App <strong>{created.app.name}</strong> was created. Its workers authenticate with this secret
      (JOBWHEEL_APP_SECRET):
    </SecretOnce>
  );
}
