module fan.bench/forkconc

go 1.26.0
