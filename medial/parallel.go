package medial

// chunk is the number of items one parallel task covers (par.Each). Every
// item's result is written to its own slot and depends only on the item,
// so the output is the same whatever GOMAXPROCS is.
const chunk = 256
