// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"regexp"
	"strings"
	"sync"
)

// Credentials holds the secret values the rig hands out, each under a name, as the fragments that would give it
// away in a text: the value, its base64 encoding, pieces of both, and for PEM data a piece of its body. It is safe
// for concurrent use.
type Credentials struct {
	mu        sync.RWMutex
	fragments []fragment
}

type fragment struct {
	name, text string
}

// minFragment is the length under which a credential, or a piece of one, is not searched for: shorter pieces match
// by chance. The rig's tokens are longer.
const minFragment = 16

// Add registers value as a secret named name (the name is what a leak report shows, never the value).
func (c *Credentials) Add(name string, value []byte) {
	if len(value) == 0 {
		return
	}
	var texts []string
	add := func(s string) {
		if len(s) >= minFragment {
			texts = append(texts, s)
		}
	}
	b64 := base64.StdEncoding.EncodeToString(value)
	for _, s := range []string{string(value), b64} {
		add(s)
		if len(s) > 60 {
			add(s[len(s)/2 : len(s)/2+24])
			add(s[len(s)-30 : len(s)-6])
		}
	}
	if block, _ := pem.Decode(value); block != nil {
		body := base64.StdEncoding.EncodeToString(block.Bytes)
		if len(body) > 60 {
			add(body[len(body)/2 : len(body)/2+24])
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range texts {
		c.fragments = append(c.fragments, fragment{name: name, text: t})
	}
}

// Count returns how many credentials are registered.
func (c *Credentials) Count() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := map[string]bool{}
	for _, f := range c.fragments {
		names[f.name] = true
	}
	return len(names)
}

// Find returns the name of a credential that text gives away, or "". Hex dumps in text (as client-go logs binary
// bodies) are decoded first.
func (c *Credentials) Find(text string) string {
	if dumped := undump(text); dumped != "" {
		text += "\n" + dumped
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, f := range c.fragments {
		if strings.Contains(text, f.text) {
			return f.name
		}
	}
	return ""
}

// hexDumpLine matches a line of encoding/hex.Dump: offset, then up to 16 bytes in hex, then their characters.
var hexDumpLine = regexp.MustCompile(`[0-9a-f]{8}  ((?:[0-9a-f]{2} +)+)\|`)

// undump returns the bytes of the hex dumps in s, concatenated.
func undump(s string) string {
	if !strings.Contains(s, "|") {
		return ""
	}
	var b strings.Builder
	for _, m := range hexDumpLine.FindAllStringSubmatch(s, -1) {
		data, err := hex.DecodeString(strings.ReplaceAll(m[1], " ", ""))
		if err == nil {
			b.Write(data)
		}
	}
	return b.String()
}
