package stuffing

// chunk is the number of items one parallel task covers (par.For) unless
// a loop's bodies are heavy enough to share out fewer. Bodies write only
// to their own indices, so the result never depends on the schedule.
const chunk = 256
