package sso

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jobwheel/jobwheel/db"
)

// Grant is what membership of one provider group gives: administrator
// rights, or a role on one app.
type Grant struct {
	Admin bool
	App   string
	Role  db.Role
}

// Grants maps provider group names to what they give.
type Grants map[string][]Grant

// ParseGrants reads the group mapping: a JSON object from group name to a
// list of grants, each "admin" or "APP:ROLE" with ROLE one of OWNER,
// EDITOR and VIEWER, e.g.
//
//	{"jobwheel-admins": ["admin"], "payments-dev": ["payments:EDITOR", "orders:VIEWER"]}
//
// field names the setting in errors.
func ParseGrants(field, text string) (Grants, error) {
	if strings.TrimSpace(text) == "" {
		return Grants{}, nil
	}
	var raw map[string][]string
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object of group names to lists such as [\"admin\", \"payments:EDITOR\"]: %w", field, err)
	}
	out := Grants{}
	for group, list := range raw {
		if strings.TrimSpace(group) == "" {
			return nil, fmt.Errorf("%s: a group name is empty", field)
		}
		for _, g := range list {
			grant, err := parseGrant(g)
			if err != nil {
				return nil, fmt.Errorf("%s: group %q: %w", field, group, err)
			}
			out[group] = append(out[group], grant)
		}
	}
	return out, nil
}

func parseGrant(s string) (Grant, error) {
	if strings.EqualFold(s, "admin") {
		return Grant{Admin: true}, nil
	}
	app, role, ok := strings.Cut(s, ":")
	if !ok || app == "" {
		return Grant{}, fmt.Errorf("%q is neither \"admin\" nor APP:ROLE such as payments:EDITOR", s)
	}
	r := db.Role(strings.ToUpper(role))
	switch r {
	case db.RoleOwner, db.RoleEditor, db.RoleViewer:
	default:
		return Grant{}, fmt.Errorf("%q: the role %q is not OWNER, EDITOR or VIEWER", s, role)
	}
	return Grant{App: app, Role: r}, nil
}

// Managed are the apps the mapping names: on these, a user's role is what
// their groups give (none if none does). Roles on other apps are granted
// by hand and left alone.
func (g Grants) Managed() []string {
	var apps []string
	for _, list := range g {
		for _, x := range list {
			if x.App != "" && !slices.Contains(apps, x.App) {
				apps = append(apps, x.App)
			}
		}
	}
	sort.Strings(apps)
	return apps
}

// ManagesAdmin reports whether some group gives administrator rights: only
// then do a user's groups decide whether they are an administrator.
func (g Grants) ManagesAdmin() bool {
	for _, list := range g {
		for _, x := range list {
			if x.Admin {
				return true
			}
		}
	}
	return false
}

// Rights are what a user's groups give.
type Rights struct {
	Admin bool
	// Roles are the highest role per managed app; an app missing here
	// gives no role.
	Roles map[string]db.Role
}

// For returns what the groups give together: the highest role on each app.
func (g Grants) For(groups []string) Rights {
	r := Rights{Roles: map[string]db.Role{}}
	for _, group := range groups {
		for _, x := range g[group] {
			switch {
			case x.Admin:
				r.Admin = true
			case rank(x.Role) > rank(r.Roles[x.App]):
				r.Roles[x.App] = x.Role
			}
		}
	}
	return r
}

func rank(r db.Role) int {
	switch r {
	case db.RoleViewer:
		return 1
	case db.RoleEditor:
		return 2
	case db.RoleOwner:
		return 3
	}
	return 0
}
