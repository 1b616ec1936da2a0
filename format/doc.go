// Package format reads and writes the files pfmesh works with: triangle
// surfaces (STL, OBJ, OFF, PLY) as an indexed Surface with its diagnosis,
// the .pfm pressure-field mesh (see docs/pfm.md), and exports (VTK, VTU,
// OBJ).
//
// Every reader treats its input as hostile: lengths and counts are checked
// against the real size of the input before anything is allocated, and
// errors name the file and what is wrong with it.
package format
