// SPDX-License-Identifier: Apache-2.0

/// `proxy`, else the environment's `https_proxy`/`http_proxy` and `no_proxy` (contract §8).
extension ConfigurationLoader {
    /// The proxy for the server at `host`:`port` over `wss` (`usesTLS`) or `ws`; nil: direct.
    /// `proxy = ""` turns off a proxy the environment sets.
    func proxy(reader: inout SettingReader, usesTLS: Bool, host: String?) -> HTTPProxy? {
        let server = host.flatMap { try? HostAndPort.parse($0).get() }
        let serverHost = server?.name ?? ""
        let serverPort = server?.port ?? (usesTLS ? 443 : 80)
        if reader.isSet(.proxy) {
            guard let text = reader.string(.proxy), !text.isEmpty else { return nil }
            switch HTTPProxy.parse(text, source: "proxy") {
            case .success(let proxy): return proxy
            case .failure(let error):
                reader.report(.proxy, "\(error.reason); expected http://[user:password@]host:port")
                return nil
            }
        }
        // curl's rules: the lower-case names first; HTTP_PROXY in upper case is not read (a CGI
        // program gets it from a client's "Proxy:" header).
        let names = usesTLS ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        guard let name = names.first(where: { !(environment[$0] ?? "").isEmpty }), let text = environment[name] else {
            return nil
        }
        let exclusions = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        if NoProxy(exclusions).excludes(host: serverHost, port: serverPort) { return nil }
        switch HTTPProxy.parse(text, source: name) {
        case .success(let proxy): return proxy
        case .failure(let error):
            reader.report(.proxy, "\(name) in the environment: \(error.reason); expected http://[user:password@]host:port")
            return nil
        }
    }
}
