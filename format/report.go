package format

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Check reads the surface at path and diagnoses it: what `pfmesh check`
// prints, with Report.WriteText or as JSON. The findings are the file's as
// read; the verdict is the path `pfmesh build` takes, which decides on the
// surface Clean makes (a collapsed triangle blocks the exact path only if
// dropping it leaves the surface open), the file's reasons kept as what
// Clean fixes. Where Clean turns triangles round, Check adds the volume
// the oriented surface encloses (Report.OrientedVolume). Diagnose's own
// verdict is that of the surface as given.
func Check(path string, opt ReadOptions) (*Report, error) {
	s, err := ReadSurface(path, opt)
	if err != nil {
		return nil, err
	}
	r := Diagnose(s)
	r.File = path
	// Where Clean turns triangles round, the file's own sum is not the
	// volume the solid encloses.
	turned := r.Closed && r.Orientable && (r.InconsistentEdges > 0 || r.Volume < 0)
	if r.Verdict.Path == PathExact && !turned {
		return r, nil
	}
	clean, c := Clean(s, CleanOptions{})
	if turned {
		lo, hi := bounds(clean.Positions)
		v := signedVolume(clean.Positions, clean.Triangles, lo, hi)
		r.OrientedVolume = &v
	}
	// A file Diagnose sends to the exact path stays there after Clean
	// (Diagnose welds exactly as Clean does, and orientation is only a
	// note), so such a file is diagnosed once.
	if r.Verdict.Path != PathExact && c.Changed() {
		if v := Diagnose(clean).Verdict; v.Path != r.Verdict.Path {
			for _, why := range r.Verdict.Reasons {
				if !slices.Contains(v.Reasons, why) {
					v.Reasons = append(v.Reasons, why)
				}
			}
			r.Verdict = v
		}
	}
	return r, nil
}

// verdict decides the meshing path. The exact path needs a closed,
// manifold, orientable surface without self-intersections or degenerate
// triangles; what Clean repairs by itself (duplicate vertices, an
// inconsistent or inside-out orientation) does not stand in its way, and
// is noted. A surface that bounds no volume at all is refused.
func (r *Report) verdict(pos []float64, tris []int32) Verdict {
	if r.Area == 0 {
		return Verdict{Path: PathRefuse, Reasons: []string{"no triangle has any area"}}
	}
	if coplanar(pos, tris) {
		return Verdict{Path: PathRefuse, Reasons: []string{"all vertices lie in one plane: the surface encloses no volume"}}
	}
	var block, notes []string
	add := func(list *[]string, cond bool, format string, args ...any) {
		if cond {
			*list = append(*list, fmt.Sprintf(format, args...))
		}
	}
	add(&block, r.BoundaryEdges > 0, "not closed: %d boundary edges in %s", r.BoundaryEdges, plural(len(r.BoundaryLoops), "loop"))
	add(&block, r.CollapsedTriangles > 0, "%s (Clean drops them)", plural(r.CollapsedTriangles, "collapsed triangle"))
	add(&block, r.NonManifoldEdges > 0, "%s", plural(r.NonManifoldEdges, "non-manifold edge"))
	add(&block, r.NonManifoldVertices > 0, "%s", plural(r.NonManifoldVertices, "non-manifold vertex"))
	add(&block, r.SelfIntersectingPairs > 0, "self-intersecting: %s", plural(r.SelfIntersectingPairs, "pair")+" of triangles meet")
	add(&block, r.ZeroAreaTriangles > 0, "%s (Clean drops them, which leaves cracks)", plural(r.ZeroAreaTriangles, "zero-area triangle"))
	add(&block, r.DuplicateTriangles > 0, "%s (Clean drops them)", plural(r.DuplicateTriangles, "duplicate triangle"))
	add(&block, !r.Orientable, "not orientable: no orientation is consistent across all manifold edges")
	add(&notes, r.DuplicateVertices > 0, "%s: Clean welds them", plural(r.DuplicateVertices, "duplicate vertex"))
	add(&notes, r.Orientable && r.InconsistentEdges > 0, "orientation disagrees across %s: Clean makes it consistent", plural(r.InconsistentEdges, "edge"))
	add(&notes, r.Volume < 0 && r.InconsistentEdges == 0, "inside out (negative volume): Clean turns it outward")
	if len(block) > 0 {
		return Verdict{Path: PathRobust, Reasons: append(block, notes...)}
	}
	return Verdict{Path: PathExact, Reasons: append([]string{}, notes...)}
}

// coplanar reports whether every vertex the triangles use lies in the
// plane of the first triangle with three non-collinear corners (exactly),
// or no such triangle exists.
func coplanar(pos []float64, tris []int32) bool {
	for t := 0; t+2 < len(tris); t += 3 {
		a, b, c := geom.At(pos, tris[t]), geom.At(pos, tris[t+1]), geom.At(pos, tris[t+2])
		if collinear(a, b, c) {
			continue
		}
		for _, v := range tris {
			if geom.Orient3D(a, b, c, geom.At(pos, v)) != 0 {
				return false
			}
		}
		return true
	}
	return true
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if v, ok := strings.CutSuffix(noun, "vertex"); ok {
		noun = v + "vertices"
	} else {
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// WriteText writes the report for people to read.
func (r *Report) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	if r.File != "" {
		p("file:         %s", r.File)
	}
	p("verdict:      %s meshing path", r.Verdict.Path)
	for _, why := range r.Verdict.Reasons {
		p("              - %s", why)
	}
	p("triangles:    %d (%d collapsed, %d zero-area, %d duplicate)", r.Triangles, r.CollapsedTriangles, r.ZeroAreaTriangles, r.DuplicateTriangles)
	p("vertices:     %d (%d duplicate, %d unused)", r.Vertices, r.DuplicateVertices, r.UnusedVertices)
	p("edges:        %d (%d boundary, %d non-manifold, %d inconsistently oriented)", r.Edges, r.BoundaryEdges, r.NonManifoldEdges, r.InconsistentEdges)
	loops := ""
	if n := len(r.BoundaryLoops); n > 0 {
		lens := fmt.Sprint(r.BoundaryLoops[:min(n, 10)])
		if n > 10 {
			lens = strings.TrimSuffix(lens, "]") + " …]"
		}
		loops = fmt.Sprintf(" (%s of lengths %s)", plural(n, "boundary loop"), lens)
	}
	p("closed:       %s%s", yesNo(r.Closed), loops)
	p("manifold:     %s (%s)", yesNo(r.Manifold), plural(r.NonManifoldVertices, "non-manifold vertex"))
	p("oriented:     %s (orientable: %s)", yesNo(r.ConsistentlyOriented), yesNo(r.Orientable))
	genus := ""
	if r.Genus != nil {
		genus = fmt.Sprintf(", genus %d", *r.Genus)
	}
	p("components:   %d%s", r.Components, genus)
	p("self-inter.:  %s", plural(r.SelfIntersectingPairs, "pair"))
	for _, pr := range r.SelfIntersections[:min(len(r.SelfIntersections), 5)] {
		p("              - triangles %d and %d", pr[0], pr[1])
	}
	p("area:         %.6g m²", r.Area)
	if r.OrientedVolume != nil {
		p("volume:       %.6g m³ once oriented (the file's triangles as read sum to %.6g)", *r.OrientedVolume, r.Volume)
	} else if r.Closed {
		p("volume:       %.6g m³", r.Volume)
	} else {
		p("volume:       ≈%.6g m³ (not closed: measured from the bounding-box centre)", r.Volume)
	}
	p("bounding box: [%.6g %.6g %.6g] to [%.6g %.6g %.6g], diagonal %.6g m",
		r.BBoxMin[0], r.BBoxMin[1], r.BBoxMin[2], r.BBoxMax[0], r.BBoxMax[1], r.BBoxMax[2], r.Diagonal)
	return b.Flush()
}
