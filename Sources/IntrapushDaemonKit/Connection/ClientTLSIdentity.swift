import IntrapushConfiguration
import NIOSSL

/// Loads `tls_cert_file` and `tls_key_file` with NIOSSL, and says in words what is wrong.
package enum ClientTLSIdentity {
    struct Failure: Error, CustomStringConvertible {
        var problem: ClientIdentityProblem
        var description: String { problem.message }
    }

    /// The chain (leaf first) and the key; throws `Failure` naming the file at fault.
    static func load(_ certificateFile: String, _ keyFile: String) throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw Failure(problem: ClientIdentityProblem(.certificate, "no PEM certificate could be read from \(certificateFile)"))
        }
        guard !chain.isEmpty else {
            throw Failure(problem: ClientIdentityProblem(.certificate, "\(certificateFile) holds no PEM certificate"))
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw Failure(problem: ClientIdentityProblem(
                .key, "no PEM private key could be read from \(keyFile) (a key protected by a passphrase must be stored without one)"))
        }
        // BoringSSL refuses a key that does not belong to the leaf certificate.
        var probe = TLSConfiguration.makeClientConfiguration()
        probe.certificateChain = chain.map { .certificate($0) }
        probe.privateKey = .privateKey(key)
        do {
            _ = try NIOSSLContext(configuration: probe)
        } catch {
            throw Failure(problem: ClientIdentityProblem(.key, "the key in \(keyFile) does not belong to the certificate in \(certificateFile)"))
        }
        return (chain, key)
    }

    /// For `ConfigurationLoader.clientIdentityCheck`: the same load, its problem or nil.
    package static let check: ClientIdentityCheck = { certificateFile, keyFile in
        do {
            _ = try load(certificateFile, keyFile)
            return nil
        } catch let failure as Failure {
            return failure.problem
        } catch {
            return ClientIdentityProblem(.certificate, "\(error)")
        }
    }
}
