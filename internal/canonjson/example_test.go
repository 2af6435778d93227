package canonjson_test

import (
	"fmt"

	"github.com/a2astream/a2astream/internal/canonjson"
)

// ExampleCanonical shows one value in two forms, as a server that keeps
// JSON in a database may give it back poll after poll, and the canonical
// encoding they share: Equal holds for them.
func ExampleCanonical() {
	a := []byte(`{"city":"Lisbon","days":3,"price":12.50}`)
	b := []byte(`{ "price": 1250e-2, "days": 3.0, "city": "Lisb\u006fn" }`)
	fmt.Println(string(canonjson.Canonical(a)))
	fmt.Println(string(canonjson.Canonical(b)))
	fmt.Println(canonjson.Equal(a, b))
	// Output:
	// {"city":"Lisbon","days":3,"price":125e-1}
	// {"city":"Lisbon","days":3,"price":125e-1}
	// true
}
