//go:build wasip1

package main

import "unsafe"

// buffers keeps what alloc handed out reachable until free.
var buffers = map[uintptr][]byte{}

// result keeps the last answer reachable until the next eval.
var result []byte

//go:wasmexport alloc
func alloc(size uint32) uintptr {
	b := make([]byte, size)
	p := uintptr(unsafe.Pointer(&b[0]))
	buffers[p] = b
	return p
}

//go:wasmexport free
func free(p uintptr) { delete(buffers, p) }

// eval answers the request at p (n bytes): the answer's address in the high 32 bits, its length in the low.
//
//go:wasmexport eval
func eval(p uintptr, n uint32) uint64 {
	result = answer(buffers[p][:n])
	return uint64(uintptr(unsafe.Pointer(&result[0])))<<32 | uint64(len(result))
}

func main() {}
