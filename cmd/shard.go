package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fan-run/fan/input"
)

// ShardSpec is --shard as given: I/N, auto, or auto/N.
type ShardSpec struct {
	Index, Count int  // I/N; Count 0 with Auto: from the environment
	Auto         bool // auto, auto/N: the index (and count) from a scheduler
}

func shardVar(f *pflag.FlagSet, p *ShardSpec, name, usage string) {
	f.Var(newValue(name, "", p, parseShard), name, usage)
}

// parseShard reads I/N (0 <= I < N), auto or auto/N.
func parseShard(s string) (ShardSpec, error) {
	bad := fmt.Errorf("%q is not a shard (try --shard 0/4 for the first of 4, counted from 0, or --shard auto)", s)
	head, tail, slash := strings.Cut(s, "/")
	var sp ShardSpec
	if slash {
		n, err := strconv.Atoi(tail)
		if err != nil || n < 1 {
			return sp, bad
		}
		sp.Count = n
	}
	if head == "auto" {
		sp.Auto = true
		return sp, nil
	}
	i, err := strconv.Atoi(head)
	switch {
	case err != nil || !slash || i < 0:
		return sp, bad
	case i >= sp.Count:
		return sp, fmt.Errorf("%q: shard %d of %d does not exist (shards are counted from 0: 0/%d to %d/%d)", s, i, sp.Count, sp.Count, sp.Count-1, sp.Count)
	}
	sp.Index = i
	return sp, nil
}

// checkShard resolves --shard: auto takes the index from Slurm's job array
// (SLURM_ARRAY_TASK_ID, less SLURM_ARRAY_TASK_MIN) or from a Kubernetes
// Indexed Job (JOB_COMPLETION_INDEX), and the count from auto/N, else
// from SLURM_ARRAY_TASK_COUNT. The zero Shard is every item.
func (c *Config) checkShard() (input.Shard, error) {
	sp := c.Input.Shard
	if !c.flagSet("shard") {
		return input.Shard{}, nil
	}
	if c.Input.Pipe.on() {
		return input.Shard{}, usageErrorf("--shard takes every Nth item, and pipe mode has blocks, not items (split the input file instead)")
	}
	if !sp.Auto {
		return input.Shard{Index: sp.Index, Count: sp.Count}, nil
	}
	num := func(name string) (int, bool, error) {
		v := c.Env.Get(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, true, usageErrorf("--shard auto: %s=%q is not a number", name, v)
		}
		return n, true, nil
	}
	index, count := 0, sp.Count
	if id, ok, err := num("SLURM_ARRAY_TASK_ID"); err != nil {
		return input.Shard{}, err
	} else if ok {
		lowest, _, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return input.Shard{}, err
		}
		index = id - lowest
		if count == 0 {
			n, ok, err := num("SLURM_ARRAY_TASK_COUNT")
			if err != nil {
				return input.Shard{}, err
			}
			if !ok {
				return input.Shard{}, usageErrorf("--shard auto: SLURM_ARRAY_TASK_COUNT is not set (give the number of shards: --shard auto/N)")
			}
			count = n
		}
	} else if k, ok, err := num("JOB_COMPLETION_INDEX"); err != nil {
		return input.Shard{}, err
	} else if ok {
		index = k
		if count == 0 {
			return input.Shard{}, usageErrorf("--shard auto: a Kubernetes Job does not tell its pods how many there are: give the number of completions, --shard auto/N")
		}
	} else {
		return input.Shard{}, usageErrorf("--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set (give --shard I/N)")
	}
	if index < 0 || index >= count {
		return input.Shard{}, usageErrorf("--shard auto: this is shard %d, and there are %d (counted from 0): the scheduler's array and N disagree", index, count)
	}
	return input.Shard{Index: index, Count: count}, nil
}
