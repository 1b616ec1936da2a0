module github.com/pfmesh/pfmesh

go 1.26.8

require (
	github.com/hschendel/stl v1.0.4
	github.com/james-bowman/sparse v0.0.0-20260216202247-495ee4f84d35
	github.com/urfave/cli/v2 v2.27.7
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
