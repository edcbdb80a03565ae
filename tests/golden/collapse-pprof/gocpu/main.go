// A CPU profile with known hot functions, for scorch's binary pprof reader
// (tests/golden/collapse-pprof/README says how go-cpu.in was captured).
// spinA does twice the work of spinB; mix is small enough to be inlined,
// so some locations carry two lines (mix inlined into a spin function).
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"
)

func mix(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 }

//go:noinline
func spinA(d time.Duration) uint64 {
	x := uint64(1)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			x = mix(x)
		}
	}
	return x
}

//go:noinline
func spinB(d time.Duration) uint64 {
	x := uint64(2)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			x = mix(x) ^ x>>7
		}
	}
	return x
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	x := spinA(600*time.Millisecond) + spinB(300*time.Millisecond)
	pprof.StopCPUProfile()
	f.Close()
	fmt.Println(x != 0)
}
