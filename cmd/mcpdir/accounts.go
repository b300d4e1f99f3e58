package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
)

// accountsCmd lets the operator see, disable and enable accounts, and
// promote them to admins of the web pages (/admin) or demote them.
func accountsCmd(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"accounts needs a subcommand: list, disable EMAIL, enable EMAIL, promote EMAIL or demote EMAIL"}
	}
	if isHelp(args[0]) {
		return helpRequested{synopsis: groupSynopsis("accounts")}
	}
	byEmail := args[0] == "disable" || args[0] == "enable" || args[0] == "promote" || args[0] == "demote"
	if args[0] != "list" && !byEmail {
		return usageError{fmt.Sprintf("unknown accounts subcommand %q: use list, disable EMAIL, enable EMAIL, promote EMAIL or demote EMAIL", args[0])}
	}
	fs, storeAt := newFlags("accounts "+args[0], env, stderr)
	rest, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	switch {
	case args[0] == "list" && len(rest) == 0:
	case byEmail && len(rest) == 1:
	default:
		return usageError{"usage: mcpdir accounts list | mcpdir accounts disable|enable|promote|demote EMAIL"}
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if byEmail {
		email, err := accounts.NormalizeEmail(rest[0])
		if err != nil {
			return usageError{mcpdir.ErrorMessage(err)}
		}
		if args[0] == "promote" || args[0] == "demote" {
			return setRole(ctx, store, args[0], email, stdout)
		}
		if args[0] == "disable" {
			err = store.DisableAccount(ctx, email, time.Now())
		} else {
			err = store.EnableAccount(ctx, email)
		}
		if errors.Is(err, mcpdir.ErrNotFound) {
			return fmt.Errorf("no account has the email %s", email)
		} else if err != nil {
			return err
		}
		if args[0] == "disable" {
			fmt.Fprintf(stdout, "disabled %s: it can no longer log in; its keys stop working on every server (until enabled again); its sessions, connected apps and pending authorizations ended\n", email)
		} else {
			fmt.Fprintf(stdout, "enabled %s: it can log in again and its keys work again, except those revoked or expired meanwhile; its ended sessions and connected apps stay ended\n", email)
		}
		return nil
	}
	all, err := store.Accounts(ctx)
	if err != nil {
		return err
	}
	keys, err := store.Keys(ctx)
	if err != nil {
		return err
	}
	owned := map[string]int{}
	for _, k := range keys {
		owned[k.Owner]++
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tROLE\tCREATED\tKEYS\tDISABLED")
	for _, a := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", terminalSafe(a.Email), cmp.Or(terminalSafe(a.Role), "-"), describeTime(a.CreatedAt, "-"), owned[a.ID], describeTime(a.DisabledAt, "-"))
	}
	return tw.Flush()
}

// setRole promotes an account to an admin of the web pages or demotes it,
// recorded in the audit (account.promote, account.demote).
func setRole(ctx context.Context, store mcpdir.Store, cmd, email string, stdout io.Writer) error {
	a, err := store.AccountByEmail(ctx, email)
	if errors.Is(err, mcpdir.ErrNotFound) {
		return fmt.Errorf("no account has the email %s", email)
	} else if err != nil {
		return err
	}
	role := map[string]string{"promote": mcpdir.RoleAdmin, "demote": ""}[cmd]
	if err := store.SetAccountRole(ctx, email, role); errors.Is(err, mcpdir.ErrNotFound) {
		return fmt.Errorf("no account has the email %s", email)
	} else if err != nil {
		return err
	}
	if err := cliAudit(ctx, store, "account."+cmd, email, map[string]map[string]string{"role": {"before": a.Role, "after": role}}); err != nil {
		return err
	}
	switch {
	case cmd == "demote":
		fmt.Fprintf(stdout, "demoted %s: it is an ordinary account again (no /admin)\n", email)
	case a.Disabled():
		fmt.Fprintf(stdout, "promoted %s to admin; it is disabled, so it has no admin rights until enabled\n", email)
	default:
		fmt.Fprintf(stdout, "promoted %s to admin: signed in, it opens /admin\n", email)
	}
	return nil
}
