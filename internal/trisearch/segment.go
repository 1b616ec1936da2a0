package trisearch

import "github.com/pfmesh/pfmesh/internal/geom"

// ClosestOnSegment returns the point of segment ab nearest p (a when the
// segment is a single point).
func ClosestOnSegment(p, a, b geom.Vec) geom.Vec { return closestOnSegment(p, a, b) }
