// Command pfmesh builds pressure-field meshes (.pfm) from triangle
// surfaces, inspects and exports them, and evaluates hydroelastic contact
// between them. Run `pfmesh help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/pfmesh/pfmesh/internal/atomicfile"
	"github.com/urfave/cli/v2"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		// Exit promptly on Ctrl-C even inside a long computation. Outputs
		// are written to temporary files and renamed when complete; those
		// in progress are removed first, so no partial output is left.
		<-sig
		atomicfile.RemoveTemps()
		fmt.Fprintln(os.Stderr, "pfmesh: interrupted; incomplete outputs removed")
		os.Exit(130)
	}()
	os.Exit(run(context.Background(), os.Args, os.Stdout, os.Stderr))
}

// usageError marks a mistake in how pfmesh was called (exit status 2), as
// opposed to a run that failed (exit status 1).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// run executes the command line and returns the exit status: 0 success,
// 1 a failed run, 2 a usage error. Every failure is one line on stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, flagsFirst(app, args))
	if err == nil {
		return 0
	}
	msg := strings.TrimSpace(err.Error())
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "pfmesh: %s (see 'pfmesh help')\n", msg)
		return 2
	}
	fmt.Fprintf(stderr, "pfmesh: %s\n", msg)
	return 1
}

func newApp(stdout, stderr io.Writer) *cli.App {
	onUsage := func(_ *cli.Context, err error, _ bool) error { return usageError{err} }
	cmds := []*cli.Command{buildCommand(), inspectCommand(), checkCommand(), exportCommand(), contactCommand(), versionCommand()}
	for _, c := range cmds {
		c.OnUsageError = onUsage
	}
	return &cli.App{
		Name:  "pfmesh",
		Usage: "pressure-field meshes for hydroelastic contact",
		Description: "pfmesh turns a closed triangle surface (STL, OBJ, OFF, PLY) into a tetrahedral mesh carrying the\n" +
			"penetration extent ε (0 on the surface, 1 on a core inside) and writes it as a .pfm file that\n" +
			"simulators load. Examples:\n\n" +
			"   pfmesh build fixtures/icosphere.obj -E 1MPa\n" +
			"   pfmesh inspect fixtures/icosphere.pfm\n" +
			"   pfmesh contact fixtures/icosphere.pfm fixtures/icosphere.pfm --pose-b \"0 0 1.8 0 0 0\"",
		Commands:        cmds,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideVersion:     true,
		OnUsageError:    onUsage,
		ExitErrHandler:  func(*cli.Context, error) {}, // run() reports errors and picks the status
		CommandNotFound: nil,
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return usagef("unknown command %q", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
	}
}

// flagsFirst moves a command's flags ahead of its arguments, so that
// "pfmesh build part.stl -E 1e6" works: the flag parser underneath stops at
// the first argument that is not a flag. A flag that takes a value keeps
// the argument after it; "--" ends the flags.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	cmd := app.Command(args[1])
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, rest []string
	for i := 2; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if takesValue[name] && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	if len(rest) > 0 {
		out = append(append(out, "--"), rest...)
	}
	return out
}
