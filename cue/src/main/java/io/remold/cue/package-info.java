/**
 * CUE evaluation by cuelang.org/go itself, in a supervised worker process (see docs/architecture.md, "How CUE runs").
 */
package io.remold.cue;
