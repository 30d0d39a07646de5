// Package pathmsg trims errors for messages that name their path already.
package pathmsg

import (
	"errors"
	"io/fs"
)

// Bare is err without the operation and path an *fs.PathError adds
// ("open /x/y: permission denied" becomes "permission denied"), for a
// message that names the path itself; any other error is returned as is.
func Bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
