import {
  Avatar,
  Box,
  Menu,
  SegmentedControl,
  Text,
  UnstyledButton,
  useMantineColorScheme,
  type MantineColorScheme,
} from "@mantine/core";
import { useDisclosure, useId } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { Link, useNavigate } from "react-router";
import { useMutation, useQuery } from "urql";
import { useResetApi } from "../api/ApiProvider";
import { errorMessage, hasErrorCode } from "../api/errors";
import { LogoutMutation, MeQuery, SignInOptionsQuery } from "../auth/operations";
import { ChangePasswordDialog } from "../account/ChangePasswordDialog";
import classes from "./UserMenu.module.css";
import { t } from "../i18n";

const schemes: { value: MantineColorScheme; label: string }[] = [
  { value: "auto", label: t("layout.UserMenu.system") },
  { value: "light", label: t("layout.UserMenu.light") },
  { value: "dark", label: t("layout.UserMenu.dark") },
];

/**
 * The logged-in user's name, opening a menu: API tokens, the GraphQL
 * explorer, Change password, the colour scheme, Log out.
 */
export function UserMenu() {
  // RequireAuth has loaded `me` already, so this reads the cache.
  const [{ data }] = useQuery({ query: MeQuery });
  const [, logout] = useMutation(LogoutMutation);
  const resetApi = useResetApi();
  const navigate = useNavigate();
  const [changingPassword, passwordDialog] = useDisclosure(false);
  const username = data?.me?.username ?? "";
  // A user of single sign-on has no password here; the menu says who
  // vouched for them instead.
  const sso = Boolean(data?.me?.ssoSubject);
  const [{ data: options }] = useQuery({ query: SignInOptionsQuery, pause: !sso });
  const provider = options?.signInOptions.sso?.name ?? t("layout.UserMenu.singleSignOn");
  // Mantine keeps the choice in localStorage; "auto" follows the OS.
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const schemeLabelId = useId();

  async function logOut() {
    const result = await logout({});
    // An expired session is as good as ended.
    if (result.error && !hasErrorCode(result.error, "UNAUTHENTICATED")) {
      notifications.show({ color: "red", title: t("layout.UserMenu.couldNotLogOut"), message: errorMessage(result.error) });
      return;
    }
    resetApi();
    await navigate("/login", { replace: true });
  }

  return (
    <>
      <Menu position="bottom-end" withArrow>
        <Menu.Target>
          <UnstyledButton className={classes.target} aria-label={t("layout.UserMenu.account", { username: username })}>
            <Avatar name={username} color="initials" size="sm" aria-hidden />
            <Text size="sm" fw={500}>
              {username}
            </Text>
            <Text size="xs" c="dimmed" aria-hidden>
              ▾
            </Text>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>{data?.me?.admin ? t("layout.UserMenu.administrator") : t("layout.UserMenu.user")}</Menu.Label>
          {sso && <Menu.Label title={data?.me?.ssoSubject ?? undefined}>{t("layout.UserMenu.signedInWith", { provider: provider })}</Menu.Label>}
          <Menu.Item component={Link} to="/tokens">{t("layout.UserMenu.apiTokens")}</Menu.Item>
          <Menu.Item component={Link} to="/graphiql">{t("layout.UserMenu.graphqlExplorer")}</Menu.Item>
          {!sso && <Menu.Item onClick={passwordDialog.open}>{t("layout.UserMenu.changePassword")}</Menu.Item>}
          <Menu.Divider />
          <Menu.Label id={schemeLabelId}>{t("layout.UserMenu.colourScheme")}</Menu.Label>
          <Box px="xs" pb={6} role="radiogroup" aria-labelledby={schemeLabelId}>
            <SegmentedControl
              size="xs"
              fullWidth
              data={schemes}
              value={colorScheme}
              onChange={(value) => setColorScheme(value as MantineColorScheme)}
            />
          </Box>
          <Menu.Divider />
          <Menu.Item onClick={() => void logOut()}>{t("layout.UserMenu.logOut")}</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <ChangePasswordDialog opened={changingPassword} onClose={passwordDialog.close} />
    </>
  );
}
