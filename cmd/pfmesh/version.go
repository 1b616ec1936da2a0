package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/pfmesh/pfmesh/format"
	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the versions of pfmesh, the .pfm format and Go",
		Description: `Example:
   pfmesh version`,
		Action: func(c *cli.Context) error {
			v := "(devel)"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			fmt.Fprintf(c.App.Writer, "pfmesh %s\n.pfm format %d.%d\n%s %s/%s\n", v, format.VersionMajor, format.VersionMinor, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
