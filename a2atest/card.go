package a2atest

import (
	"encoding/json"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
)

// The well-known paths of the agent card: the current one (0.3 and 1.0) and
// the legacy one of 0.2.
const (
	cardPath       = "/.well-known/agent-card.json"
	legacyCardPath = "/.well-known/agent.json"
)

// Card returns the agent card the agent serves when reached at host: a 0.3
// card (url, preferredTransport, protocolVersion "0.3.0") for a 0.3-only
// agent, a 1.0 card (supportedInterfaces) for a 1.0-only agent, and a hybrid
// card with both for an agent that speaks both versions, its 1.0 interfaces
// first. It lists the bindings of [WithBindings] in their order: the
// JSON-RPC endpoint is "http://"+host+"/", the HTTP+JSON base
// "http://"+host plus the [WithRESTBase] path. A 1.0 card has one
// interface per binding; a 0.3 card names the first binding in url and
// preferredTransport and, when there are several, lists all of them in
// additionalInterfaces. Its capabilities say streaming unless
// [WithoutStreaming] is given. [WithCardJSON] does not change what Card
// returns.
func (a *Agent) Card(host string) a2a.AgentCard {
	urlOf := func(b a2a.Binding) string {
		if b == a2a.BindingHTTPJSON && a.cfg.restBase != "/" {
			return "http://" + host + a.cfg.restBase
		}
		return "http://" + host + "/"
	}
	streaming := !a.cfg.noStreaming
	card := a2a.AgentCard{
		Name:         a.cfg.name,
		Description:  "scriptable fake A2A agent (a2atest)",
		Version:      "1.0.0",
		Capabilities: a2a.AgentCapabilities{Streaming: &streaming, PushNotifications: a.cfg.push},
	}
	if a.cfg.v10 {
		for _, b := range a.cfg.bindings {
			card.SupportedInterfaces = append(card.SupportedInterfaces, a2a.AgentInterface{
				URL:             urlOf(b),
				ProtocolBinding: string(b),
				ProtocolVersion: "1.0",
				Tenant:          a.cfg.tenant,
			})
		}
	}
	if a.cfg.v03 {
		card.URL = urlOf(a.cfg.bindings[0])
		card.PreferredTransport = string(a.cfg.bindings[0])
		card.ProtocolVersion = "0.3.0"
		for _, b := range a.cfg.bindings {
			if len(a.cfg.bindings) > 1 {
				card.AdditionalInterfaces = append(card.AdditionalInterfaces, a2a.AgentInterface{URL: urlOf(b), Transport: string(b)})
			}
			if a.cfg.v10 {
				card.SupportedInterfaces = append(card.SupportedInterfaces, a2a.AgentInterface{
					URL:             urlOf(b),
					ProtocolBinding: string(b),
					ProtocolVersion: "0.3",
				})
			}
		}
	}
	return card
}

func isCardPath(p string) bool { return p == cardPath || p == legacyCardPath }

func (a *Agent) serveCard(w http.ResponseWriter, r *http.Request) {
	switch p := a.cfg.habits.cardPath; {
	case p != "":
		if r.URL.Path != p {
			http.NotFound(w, r)
			return
		}
	case r.URL.Path == legacyCardPath:
	case r.URL.Path == cardPath && !a.cfg.noWellKnown:
	default:
		http.NotFound(w, r)
		return
	}
	a.mu.Lock()
	a.nCards++
	a.mu.Unlock()

	body := a.cfg.cardJSON
	if body == nil {
		card := a.Card(r.Host)
		if a.cfg.habits.bareCard {
			// WithBareCard: no version, no transport, no interfaces.
			card = a2a.AgentCard{Name: card.Name, Description: card.Description, Version: card.Version,
				URL: "http://" + r.Host + "/", Capabilities: card.Capabilities}
		}
		var err error
		body, err = json.Marshal(card)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(body)
}
