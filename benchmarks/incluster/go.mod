module remold.io/benchmarks/incluster

go 1.26
