// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package docs_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"unicode"
)

// docVariables are the variables pages use without declaring them, by the type they stand for: the conventional
// names of controller-runtime's and this repository's code. Any other lower-case name is taken for a variable of
// the type it is named after (provider: a Provider, registry: a Registry), if the universe has a type of that name.
var docVariables = map[string]struct{ pkg, name string }{
	"mgr":   {modulePath + "/pkg/manager", "Manager"},
	"cl":    {"sigs.k8s.io/controller-runtime/pkg/cluster", "Cluster"},
	"req":   {modulePath + "/pkg/reconcile", "Request"},
	"fleet": {modulePath + "/pkg/envtest", "Fleet"},
	"ctx":   {"context", "Context"},
	"log":   {"github.com/go-logr/logr", "Logger"},
}

// value is what an expression of a page can be: a package, a type, or a value of a type. obj is the object the
// expression's last name denotes, if any.
type value struct {
	pkg    *types.Package
	typ    types.Type
	isType bool
	obj    types.Object
}

// exprChecker resolves the names of one code span and collects what is wrong with them.
type exprChecker struct {
	u    *universe
	para string // the span's paragraph
	errs []string
}

func (c *exprChecker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// isPlaceholder reports whether a capitalised name stands for the reader's own code: a single letter (T, M) or a
// name starting with "My" (MyType, MyProvider).
func isPlaceholder(name string) bool {
	if len(name) == 1 {
		return true
	}
	return strings.HasPrefix(name, "My") && len(name) > 2 && unicode.IsUpper(rune(name[2]))
}

func isAllCaps(name string) bool { return strings.ToUpper(name) == name }

// eval resolves e. It returns the values e can be (several where an alias or a name is ambiguous), or false where
// e's meaning is unknown, such as a local variable of the prose, in which case nothing more is checked.
func (c *exprChecker) eval(e ast.Expr) ([]value, bool) {
	switch e := e.(type) {
	case *ast.Ident:
		return c.ident(e.Name)
	case *ast.SelectorExpr:
		return c.selector(e)
	case *ast.CallExpr:
		return c.call(e)
	case *ast.ParenExpr:
		return c.eval(e.X)
	case *ast.StarExpr:
		xs, ok := c.eval(e.X)
		var out []value
		for _, x := range xs {
			switch {
			case x.isType:
				out = append(out, value{typ: types.NewPointer(x.typ), isType: true, obj: x.obj})
			case x.typ != nil:
				if p, isPtr := x.typ.Underlying().(*types.Pointer); isPtr {
					out = append(out, value{typ: p.Elem()})
				}
			}
		}
		return out, ok && len(out) > 0
	case *ast.UnaryExpr:
		xs, ok := c.eval(e.X)
		if e.Op != token.AND {
			return nil, false
		}
		var out []value
		for _, x := range xs {
			if x.typ != nil && !x.isType {
				out = append(out, value{typ: types.NewPointer(x.typ)})
			}
		}
		return out, ok && len(out) > 0
	case *ast.IndexExpr:
		return c.index(e.X, []ast.Expr{e.Index})
	case *ast.IndexListExpr:
		return c.index(e.X, e.Indices)
	case *ast.CompositeLit:
		return c.composite(e)
	case *ast.BasicLit:
		switch e.Kind {
		case token.STRING:
			return []value{{typ: types.Typ[types.UntypedString]}}, true
		case token.INT:
			return []value{{typ: types.Typ[types.UntypedInt]}}, true
		case token.FLOAT:
			return []value{{typ: types.Typ[types.UntypedFloat]}}, true
		default: // an imaginary or a rune literal: no page names one
			return nil, false
		}
	case *ast.BinaryExpr:
		c.eval(e.X)
		c.eval(e.Y)
		return nil, false
	case *ast.FuncLit:
		c.walk(e.Type)
		c.walk(e.Body)
		return nil, false
	default:
		c.walk(e)
		return nil, false
	}
}

// walk resolves the names rooted at a package alias inside a node whose own meaning is not evaluated (a function
// literal's body, a type).
func (c *exprChecker) walk(n ast.Node) {
	if n == nil {
		return
	}
	ast.Inspect(n, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && len(c.u.aliases[id.Name]) > 0 {
			c.eval(sel)
			return false
		}
		return true
	})
}

func (c *exprChecker) ident(name string) ([]value, bool) {
	switch {
	case name == "_" || isPlaceholder(name):
		return nil, false
	case !unicode.IsUpper(rune(name[0])):
		// A package alias, a variable the pages use by convention, or a variable named after its type.
		var out []value
		for _, p := range c.u.aliases[name] {
			out = append(out, value{pkg: p})
		}
		if v, ok := docVariables[name]; ok {
			var obj *types.TypeName
			if p := c.u.pkgs[v.pkg]; p != nil {
				obj, _ = p.Scope().Lookup(v.name).(*types.TypeName)
			}
			if obj == nil {
				c.errorf("the test's variable %s stands for %s.%s, which is not in the universe", name, v.pkg, v.name)
				return nil, false
			}
			out = append(out, value{typ: obj.Type()})
		}
		if len(out) == 0 {
			for _, obj := range c.u.names[string(unicode.ToUpper(rune(name[0])))+name[1:]] {
				if tn, ok := obj.(*types.TypeName); ok && c.u.ours[tn.Pkg().Path()] {
					out = append(out, value{typ: tn.Type()})
				}
			}
		}
		return out, len(out) > 0
	case isAllCaps(name):
		// Environment variables, HTTP verbs, acronyms: not Go names.
		return nil, false
	case strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Fuzz") || strings.HasPrefix(name, "Benchmark") ||
		strings.HasPrefix(name, "Example"):
		if !c.u.tests[name] && len(c.u.names[name]) == 0 {
			c.errorf("%s: no test function of that name in the repository", name)
		}
		return nil, false
	}
	objs := c.u.names[name]
	if len(objs) == 0 {
		if !c.u.strings[name] {
			c.errorf("%s names nothing in the repository's packages or the packages they import", name)
		}
		return nil, false
	}
	c.checkDeprecated(name, objs)
	var out []value
	for _, obj := range objs {
		out = append(out, valueOf(obj))
	}
	return out, true
}

// valueOf is the value a name denotes.
func valueOf(obj types.Object) value {
	if _, ok := obj.(*types.TypeName); ok {
		return value{typ: obj.Type(), isType: true, obj: obj}
	}
	return value{typ: obj.Type(), obj: obj}
}

func (c *exprChecker) selector(e *ast.SelectorExpr) ([]value, bool) {
	xs, ok := c.eval(e.X)
	name := e.Sel.Name
	if !ok || !token.IsExported(name) {
		// A lower-case selector is not an exported Go name: a host name (events.k8s.io), a file (kubeconfig.yaml).
		return nil, false
	}
	var out []value
	var found []types.Object
	var misses []string
	for _, x := range xs {
		switch {
		case x.pkg != nil:
			obj := x.pkg.Scope().Lookup(name)
			if obj == nil || !obj.Exported() {
				misses = append(misses, fmt.Sprintf("package %s has no %s", x.pkg.Path(), name))
				continue
			}
			out, found = append(out, valueOf(obj)), append(found, obj)
		case x.typ != nil:
			obj, _, _ := types.LookupFieldOrMethod(x.typ, true, nil, name)
			if obj == nil {
				misses = append(misses, fmt.Sprintf("%s has no field or method %s", typeString(x.typ), name))
				continue
			}
			v := valueOf(obj)
			if fn, ok := obj.(*types.Func); ok {
				// A method, called on a value or named on its type (Type.Method): its signature without the receiver.
				sig := fn.Type().(*types.Signature)
				v.typ = types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic())
			}
			out, found = append(out, v), append(found, obj)
		}
	}
	if len(out) == 0 {
		if len(misses) > 0 {
			c.errorf("%s does not resolve: %s", exprString(e), strings.Join(dedupe(misses), "; "))
		}
		return nil, false
	}
	c.checkDeprecated(exprString(e), found)
	return out, true
}

func (c *exprChecker) call(e *ast.CallExpr) ([]value, bool) {
	fs, ok := c.eval(e.Fun)
	for _, a := range e.Args {
		c.eval(a)
	}
	if _, sig := e.Fun.(*ast.CallExpr); !ok || sig {
		// F(a, b)(c, d) is how pages show a signature, `Get(ctx, name) (cluster.Cluster, error)`: the results are
		// types, not arguments.
		return nil, false
	}
	var out []value
	var misses []string
	for _, f := range fs {
		if f.isType {
			out = append(out, value{typ: f.typ}) // a conversion
			continue
		}
		sig, ok := f.typ.Underlying().(*types.Signature)
		if !ok {
			misses = append(misses, fmt.Sprintf("%s is not a function", typeString(f.typ)))
			continue
		}
		if why := c.argumentsMismatch(sig, e); why != "" {
			misses = append(misses, fmt.Sprintf("%s%s: %s", exprString(e.Fun), paramsString(sig), why))
			continue
		}
		if sig.Results().Len() > 0 {
			out = append(out, value{typ: sig.Results().At(0).Type()})
		} else {
			out = append(out, value{})
		}
	}
	if len(out) == 0 {
		if len(misses) > 0 {
			c.errorf("%s: %s", exprString(e), strings.Join(dedupe(misses), "; "))
		}
		return nil, false
	}
	var known []value
	for _, v := range out {
		if v.typ != nil {
			known = append(known, v)
		}
	}
	return known, len(known) > 0
}

// argumentsMismatch says why the call's arguments cannot be those of sig: their number, a literal of the wrong
// kind, or an argument named like another parameter of sig (the order of the arguments is wrong).
func (c *exprChecker) argumentsMismatch(sig *types.Signature, e *ast.CallExpr) string {
	params := sig.Params()
	n, nargs := params.Len(), len(e.Args)
	switch {
	case sig.Variadic() && e.Ellipsis.IsValid() && nargs != n,
		sig.Variadic() && !e.Ellipsis.IsValid() && nargs < n-1,
		!sig.Variadic() && nargs != n:
		return fmt.Sprintf("takes %d argument(s), the page passes %d", n, nargs)
	}
	for i, a := range e.Args {
		pt := params.At(min(i, n-1)).Type()
		if sig.Variadic() && i >= n-1 && !e.Ellipsis.IsValid() {
			pt = pt.(*types.Slice).Elem()
		}
		if why := literalMismatch(a, pt); why != "" {
			return fmt.Sprintf("argument %d: %s", i+1, why)
		}
		id, ok := a.(*ast.Ident)
		if !ok || (i < n && params.At(i).Name() == id.Name) {
			continue
		}
		for j := range n {
			if j != i && params.At(j).Name() == id.Name {
				return fmt.Sprintf("argument %d is named %s, which is parameter %d: the order of the arguments is wrong", i+1, id.Name, j+1)
			}
		}
	}
	return ""
}

// literalMismatch says why literal argument a cannot be of type pt: a string where a number or bool goes, and so on.
func literalMismatch(a ast.Expr, pt types.Type) string {
	basic, ok := pt.Underlying().(*types.Basic)
	if !ok {
		return ""
	}
	info := basic.Info()
	switch a := a.(type) {
	case *ast.BasicLit:
		switch {
		case a.Kind == token.STRING && info&types.IsString == 0,
			(a.Kind == token.INT || a.Kind == token.FLOAT) && info&types.IsNumeric == 0:
			return fmt.Sprintf("%s is not a %s", a.Value, pt)
		}
	case *ast.Ident:
		if (a.Name == "true" || a.Name == "false") && info&types.IsBoolean == 0 {
			return fmt.Sprintf("%s is not a %s", a.Name, pt)
		}
	}
	return ""
}

func (c *exprChecker) index(x ast.Expr, indices []ast.Expr) ([]value, bool) {
	xs, ok := c.eval(x)
	for _, i := range indices {
		c.eval(i)
	}
	if !ok {
		return nil, false
	}
	var out []value
	for _, v := range xs {
		if v.isType {
			out = append(out, v) // an instantiation
			continue
		}
		switch t := v.typ.Underlying().(type) {
		case *types.Map:
			out = append(out, value{typ: t.Elem()})
		case *types.Slice:
			out = append(out, value{typ: t.Elem()})
		case *types.Signature:
			out = append(out, v) // an instantiation of a generic function
		}
	}
	return out, len(out) > 0
}

func (c *exprChecker) composite(e *ast.CompositeLit) ([]value, bool) {
	var ts []value
	ok := false
	if e.Type != nil {
		ts, ok = c.eval(e.Type)
	}
	for _, elt := range e.Elts {
		kv, isKV := elt.(*ast.KeyValueExpr)
		if !isKV {
			c.eval(elt)
			continue
		}
		c.eval(kv.Value)
		key, isIdent := kv.Key.(*ast.Ident)
		if !ok || !isIdent {
			continue
		}
		var misses []string
		hit := false
		for _, t := range ts {
			if _, isStruct := t.typ.Underlying().(*types.Struct); !isStruct {
				hit = true
				continue
			}
			if obj, _, _ := types.LookupFieldOrMethod(t.typ, false, nil, key.Name); obj != nil {
				hit = true
				c.checkDeprecated(key.Name, []types.Object{obj})
			} else {
				misses = append(misses, fmt.Sprintf("%s has no field %s", typeString(t.typ), key.Name))
			}
		}
		if !hit {
			c.errorf("%s: %s", exprString(e), strings.Join(dedupe(misses), "; "))
		}
	}
	var out []value
	for _, t := range ts {
		if t.isType {
			out = append(out, value{typ: t.typ})
		}
	}
	return out, len(out) > 0
}

// checkDeprecated reports a name all of whose meanings are deprecated, unless its paragraph says it is deprecated.
func (c *exprChecker) checkDeprecated(name string, objs []types.Object) {
	if len(objs) == 0 || strings.Contains(strings.ToLower(c.para), "deprecat") {
		return
	}
	var notice string
	for _, obj := range objs {
		d := c.u.deprecation(obj)
		if d == "" {
			return
		}
		notice = fmt.Sprintf("%s (%s): %q", qualifiedName(obj), c.u.fset.Position(obj.Pos()), d)
	}
	c.errorf("%s is deprecated, %s; name what replaces it, or say in the same paragraph that it is deprecated", name, notice)
}

func qualifiedName(obj types.Object) string {
	if obj.Pkg() == nil {
		return obj.Name()
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

func paramsString(sig *types.Signature) string {
	s := typeString(sig)
	return strings.TrimPrefix(s, "func")
}

func exprString(e ast.Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

// writeExpr writes e as the page would, shortened: arguments and literals are elided.
func writeExpr(b *strings.Builder, e ast.Expr) {
	switch e := e.(type) {
	case *ast.Ident:
		b.WriteString(e.Name)
	case *ast.SelectorExpr:
		writeExpr(b, e.X)
		b.WriteString("." + e.Sel.Name)
	case *ast.CallExpr:
		writeExpr(b, e.Fun)
		b.WriteString("(...)")
	case *ast.StarExpr:
		b.WriteString("*")
		writeExpr(b, e.X)
	case *ast.ParenExpr:
		b.WriteString("(")
		writeExpr(b, e.X)
		b.WriteString(")")
	case *ast.UnaryExpr:
		b.WriteString(e.Op.String())
		writeExpr(b, e.X)
	case *ast.IndexExpr:
		writeExpr(b, e.X)
		b.WriteString("[...]")
	case *ast.IndexListExpr:
		writeExpr(b, e.X)
		b.WriteString("[...]")
	case *ast.CompositeLit:
		if e.Type != nil {
			writeExpr(b, e.Type)
		}
		b.WriteString("{...}")
	default:
		b.WriteString("...")
	}
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
