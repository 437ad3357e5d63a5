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

const schemes: { value: MantineColorScheme; label: string }[] = [
  { value: "auto", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
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
  const provider = options?.signInOptions.sso?.name ?? "single sign-on";
  // Mantine keeps the choice in localStorage; "auto" follows the OS.
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const schemeLabelId = useId();

  async function logOut() {
    const result = await logout({});
    // An expired session is as good as ended.
    if (result.error && !hasErrorCode(result.error, "UNAUTHENTICATED")) {
      notifications.show({ color: "red", title: "Could not log out", message: errorMessage(result.error) });
      return;
    }
    resetApi();
    await navigate("/login", { replace: true });
  }

  return (
    <>
      <Menu position="bottom-end" withArrow>
        <Menu.Target>
          <UnstyledButton className={classes.target} aria-label={`Account: ${username}`}>
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
          <Menu.Label>{data?.me?.admin ? "Administrator" : "User"}</Menu.Label>
          {sso && <Menu.Label title={data?.me?.ssoSubject ?? undefined}>Signed in with {provider}</Menu.Label>}
          <Menu.Item component={Link} to="/tokens">
            API tokens
          </Menu.Item>
          <Menu.Item component={Link} to="/graphiql">
            GraphQL explorer
          </Menu.Item>
          {!sso && <Menu.Item onClick={passwordDialog.open}>Change password</Menu.Item>}
          <Menu.Divider />
          <Menu.Label id={schemeLabelId}>Colour scheme</Menu.Label>
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
          <Menu.Item onClick={() => void logOut()}>Log out</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <ChangePasswordDialog opened={changingPassword} onClose={passwordDialog.close} />
    </>
  );
}
