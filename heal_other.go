//go:build !unix

package turnback

// openNoBlock: no FIFOs block an open here.
const openNoBlock = 0
