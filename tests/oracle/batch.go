package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
)

// endLine terminates the output of one scenario in -batch mode.
type endLine struct {
	Scenario string  `json:"scenario"`
	End      bool    `json:"end"`
	Pods     int     `json:"pods"`
	Error    *string `json:"error"`
}

// runBatch reads scenarios as JSON Lines from in (blank lines are skipped) and
// runs them one after another. For each it writes the mode's output lines, each
// with a leading "scenario" field, then an endLine, then flushes. A scenario that
// cannot be run is reported in its endLine; the batch goes on. Only an I/O error
// on in or out ends the batch early.
func runBatch(e *env, op *options, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriterSize(out, 1<<16)
	lineNo := 0
	for {
		data, readErr := r.ReadBytes('\n')
		if len(data) > 0 {
			lineNo++
		}
		if len(bytes.TrimSpace(data)) > 0 {
			if err := runBatchLine(e, op, lineNo, data, w); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return readErr
		}
	}
}

// runBatchLine runs the scenario of one input line. Its name is the scenario's
// "name", or "#<line number>" when that is empty or the line cannot be parsed.
func runBatchLine(e *env, op *options, lineNo int, data []byte, w io.Writer) error {
	name := fmt.Sprintf("#%d", lineNo)
	var raw rawScenario
	jsonErr := json.Unmarshal(data, &raw)
	if jsonErr == nil && raw.Name != "" {
		name = raw.Name
	}
	var writeErr error
	emit := func(v any) error {
		b, err := withScenario(name, v)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			writeErr = err
			return err
		}
		return nil
	}

	var pods int
	var runErr error
	if jsonErr != nil {
		runErr = fmt.Errorf("parsing scenario: %w", jsonErr)
	} else {
		pods, runErr = func() (n int, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
				}
			}()
			sc, err := e.dec.build(&raw, op.decodeMode())
			if err != nil {
				return 0, err
			}
			if sc.Name == "" {
				sc.Name = name
			}
			ctx, cancel := scenarioContext(op.timeout)
			defer cancel() // stops the scenario's informers and scheduler goroutines
			return runScenario(ctx, e, op, sc, emit)
		}()
	}
	if writeErr != nil {
		return writeErr
	}
	end := endLine{Scenario: name, End: true, Pods: pods}
	if runErr != nil {
		msg := runErr.Error()
		end.Error = &msg
	}
	b, err := marshalLine(end)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// marshalLine is json.Encoder's encoding (no HTML escaping), newline-terminated.
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// withScenario encodes v (a JSON object) as one line with "scenario":name as its
// first field. An object that already starts with a "scenario" field is kept as is.
func withScenario(name string, v any) ([]byte, error) {
	b, err := marshalLine(v)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("output is not a JSON object: %s", b)
	}
	if bytes.HasPrefix(b, []byte(`{"scenario":`)) {
		return b, nil
	}
	q, err := marshalLine(name)
	if err != nil {
		return nil, err
	}
	q = bytes.TrimSuffix(q, []byte("\n"))
	out := make([]byte, 0, len(b)+len(q)+13)
	out = append(out, `{"scenario":`...)
	out = append(out, q...)
	if !bytes.HasPrefix(b, []byte("{}")) {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}
