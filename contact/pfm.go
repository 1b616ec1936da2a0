package contact

import (
	"fmt"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/bvh"
)

// FromPFM returns the compliant body of a .pfm's content, with its modulus,
// pressure mapping, dissipation and friction. The stored BVH is used when
// present (after checking that it is a well-formed tree whose boxes contain
// their tets); otherwise one is built. The slices are kept, not copied.
func FromPFM(f *format.PFM) (*Body, error) {
	b, err := fromPFM(f)
	if err != nil {
		return nil, fmt.Errorf("contact: pfm body: %w", err)
	}
	return b, nil
}

func fromPFM(f *format.PFM) (*Body, error) {
	nv := len(f.Positions) / 3
	if len(f.Epsilon) != nv {
		return nil, fmt.Errorf("%d ε values for %d vertices", len(f.Epsilon), nv)
	}
	g := make([]float64, nv)
	for i, e := range f.Epsilon {
		v, err := mapping(&f.Header, e)
		if err != nil {
			return nil, fmt.Errorf("vertex %d: %w", i, err)
		}
		g[i] = v
	}
	m := Material{Modulus: f.Modulus, Dissipation: f.Dissipation, Friction: f.Friction}
	b, err := newCompliant(f.Positions, f.Tets, g, m, nil)
	if err != nil || f.BVH == nil {
		return b, err
	}
	tree := &bvh.Tree{Bounds: f.BVH.Bounds, Nodes: f.BVH.Nodes, Items: f.BVH.Items}
	if err := checkTree(tree, b.boxes); err != nil {
		return nil, fmt.Errorf("stored BVH: %w", err)
	}
	b.setTree(tree)
	return b, nil
}

// mapping returns g(ε) = p0/E for the header's pressure mapping.
// TODO(format): use Header.Pressure once the .pfm package provides it.
func mapping(h *format.Header, eps float64) (float64, error) {
	if !(eps >= 0 && eps <= 1) {
		return 0, fmt.Errorf("ε = %g: want a value in [0, 1]", eps)
	}
	if h.Mapping != format.Linear {
		return 0, fmt.Errorf("pressure mapping %d: only the linear mapping is supported yet", h.Mapping)
	}
	return eps, nil
}

// checkTree checks that t is a depth-first tree over all n = len(boxes)/6
// items, each in exactly one leaf, whose node boxes contain their children's
// and whose leaf boxes contain their items' boxes, so no traversal can
// loop, index out of range or miss an overlap.
func checkTree(t *bvh.Tree, boxes []float64) error {
	n := len(boxes) / 6
	nn := len(t.Nodes) / 2
	if len(t.Nodes)%2 != 0 || nn == 0 || len(t.Bounds) != 6*nn {
		return fmt.Errorf("%d node values and %d bound values: want 2 and 6 per node, at least one node", len(t.Nodes), len(t.Bounds))
	}
	if len(t.Items) != n {
		return fmt.Errorf("%d items for %d tets", len(t.Items), n)
	}
	seen := make([]bool, n)
	covered := 0
	contains := func(outer, inner []float64) bool {
		return outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] <= inner[2] &&
			outer[3] >= inner[3] && outer[4] >= inner[4] && outer[5] >= inner[5]
	}
	// Depth first from the root: node i's left child is i+1 and its right
	// child lies after the whole left subtree, so each node must be the next
	// index reached.
	next := int32(0)
	stack := []int32{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i != next {
			return fmt.Errorf("node %d reached out of depth-first order (expected %d)", i, next)
		}
		next++
		first, count := t.Nodes[2*i], t.Nodes[2*i+1]
		box := t.Bounds[6*i : 6*i+6]
		if count < 0 {
			return fmt.Errorf("node %d: negative count %d", i, count)
		}
		if count > 0 {
			if first < 0 || int(first) > n-int(count) {
				return fmt.Errorf("leaf %d: items [%d, %d+%d) out of range [0, %d)", i, first, first, count, n)
			}
			for _, it := range t.Items[first : first+count] {
				if it < 0 || int(it) >= n || seen[it] {
					return fmt.Errorf("leaf %d: item %d out of range or listed twice", i, it)
				}
				seen[it] = true
				if !contains(box, boxes[6*it:6*it+6]) {
					return fmt.Errorf("leaf %d: box does not contain tet %d", i, it)
				}
			}
			covered += int(count)
			continue
		}
		left, right := i+1, first
		if int(right) >= nn || right <= left {
			return fmt.Errorf("node %d: right child %d out of range (%d nodes)", i, right, nn)
		}
		if !contains(box, t.Bounds[6*left:6*left+6]) || !contains(box, t.Bounds[6*right:6*right+6]) {
			return fmt.Errorf("node %d: box does not contain its children's", i)
		}
		stack = append(stack, right, left)
	}
	if int(next) != nn || covered != n {
		return fmt.Errorf("%d of %d nodes and %d of %d items reachable from the root", next, nn, covered, n)
	}
	return nil
}
