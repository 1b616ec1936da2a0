package geom

import "math"

// The float stages of Orient3D and InSphere, shared by the Vec and the
// flat-slice entry points. Each takes the coordinates of the points
// relative to the last one and returns the float determinant and a bound
// on its error (Shewchuk's bound A times the permanent): when |det| >
// bound, det has the exact sign; bound == 0 means the determinant is
// exactly zero.

// orient3dFilter evaluates det[a−d; b−d; c−d].
func orient3dFilter(adx, ady, adz, bdx, bdy, bdz, cdx, cdy, cdz float64) (det, bound float64) {
	bdxcdy, cdxbdy := bdx*cdy, cdx*bdy
	cdxady, adxcdy := cdx*ady, adx*cdy
	adxbdy, bdxady := adx*bdy, bdx*ady
	det = adz*(bdxcdy-cdxbdy) + bdz*(cdxady-adxcdy) + cdz*(adxbdy-bdxady)
	perm := (math.Abs(bdxcdy)+math.Abs(cdxbdy))*math.Abs(adz) +
		(math.Abs(cdxady)+math.Abs(adxcdy))*math.Abs(bdz) +
		(math.Abs(adxbdy)+math.Abs(bdxady))*math.Abs(cdz)
	return det, orient3dBoundA * perm
}

// inSphereFilter evaluates Shewchuk's insphere determinant of a, b, c, d
// relative to e.
func inSphereFilter(aex, aey, aez, bex, bey, bez, cex, cey, cez, dex, dey, dez float64) (det, bound float64) {
	aexbey, bexaey := aex*bey, bex*aey
	bexcey, cexbey := bex*cey, cex*bey
	cexdey, dexcey := cex*dey, dex*cey
	dexaey, aexdey := dex*aey, aex*dey
	aexcey, cexaey := aex*cey, cex*aey
	bexdey, dexbey := bex*dey, dex*bey
	ab, bc, cd, da := aexbey-bexaey, bexcey-cexbey, cexdey-dexcey, dexaey-aexdey
	ac, bd := aexcey-cexaey, bexdey-dexbey

	abc := aez*bc - bez*ac + cez*ab
	bcd := bez*cd - cez*bd + dez*bc
	cda := cez*da + dez*ac + aez*cd
	dab := dez*ab + aez*bd + bez*da
	alift := aex*aex + aey*aey + aez*aez
	blift := bex*bex + bey*bey + bez*bez
	clift := cex*cex + cey*cey + cez*cez
	dlift := dex*dex + dey*dey + dez*dez
	det = (dlift*abc - clift*dab) + (blift*cda - alift*bcd)

	aezp, bezp, cezp, dezp := math.Abs(aez), math.Abs(bez), math.Abs(cez), math.Abs(dez)
	abp := math.Abs(aexbey) + math.Abs(bexaey)
	bcp := math.Abs(bexcey) + math.Abs(cexbey)
	cdp := math.Abs(cexdey) + math.Abs(dexcey)
	dap := math.Abs(dexaey) + math.Abs(aexdey)
	acp := math.Abs(aexcey) + math.Abs(cexaey)
	bdp := math.Abs(bexdey) + math.Abs(dexbey)
	perm := (cdp*bezp+bdp*cezp+bcp*dezp)*alift +
		(dap*cezp+acp*dezp+cdp*aezp)*blift +
		(abp*dezp+bdp*aezp+dap*bezp)*clift +
		(bcp*aezp+acp*bezp+abp*cezp)*dlift
	return det, inSphereBoundA * perm
}

// Orient3DAt is Orient3D of the points with indices a, b, c, d in the flat
// xyz slice (three coordinates per point). Hot loops over flat meshes use
// it to skip building Vec values on the filter's fast path.
func Orient3DAt(xyz []float64, a, b, c, d int32) int {
	ia, ib, ic, id := 3*int(a), 3*int(b), 3*int(c), 3*int(d)
	_ = xyz[ia+2]
	_ = xyz[ib+2]
	_ = xyz[ic+2]
	dx, dy, dz := xyz[id], xyz[id+1], xyz[id+2]
	// Orient3D(a, b, c, d) is Shewchuk's orient3d(a, c, b, d).
	det, bound := orient3dFilter(xyz[ia]-dx, xyz[ia+1]-dy, xyz[ia+2]-dz, xyz[ic]-dx, xyz[ic+1]-dy, xyz[ic+2]-dz,
		xyz[ib]-dx, xyz[ib+1]-dy, xyz[ib+2]-dz)
	if det > bound || -det > bound {
		return sign(det)
	}
	if bound == 0 {
		return 0
	}
	return Orient3D(At(xyz, a), At(xyz, b), At(xyz, c), At(xyz, d))
}

// InSphereSoSAt is InSphereSoS of the points with indices a, b, c, d, e in
// the flat xyz slice, keyed by those indices.
func InSphereSoSAt(xyz []float64, a, b, c, d, e int32) int {
	ia, ib, ic, id, ie := 3*int(a), 3*int(b), 3*int(c), 3*int(d), 3*int(e)
	_ = xyz[ia+2]
	_ = xyz[ib+2]
	_ = xyz[ic+2]
	_ = xyz[id+2]
	ex, ey, ez := xyz[ie], xyz[ie+1], xyz[ie+2]
	// InSphere(a, b, c, d, e) is Shewchuk's insphere(a, b, d, c, e).
	det, bound := inSphereFilter(xyz[ia]-ex, xyz[ia+1]-ey, xyz[ia+2]-ez, xyz[ib]-ex, xyz[ib+1]-ey, xyz[ib+2]-ez,
		xyz[id]-ex, xyz[id+1]-ey, xyz[id+2]-ez, xyz[ic]-ex, xyz[ic+1]-ey, xyz[ic+2]-ez)
	if det > bound || -det > bound {
		return sign(det)
	}
	return InSphereSoS(At(xyz, a), At(xyz, b), At(xyz, c), At(xyz, d), At(xyz, e), a, b, c, d, e)
}
